"""Progress bars for the command line: shown only when stderr is a terminal, so they never
end up in redirected logs or in front of an error line."""
import sys
from typing import Iterable, TypeVar

T = TypeVar("T")


def progress_bar(iterable: Iterable[T], desc: str, unit: str, show: bool = True) -> Iterable[T]:
    """`iterable` wrapped in a tqdm bar on stderr (left in place of nothing when done), or
    as it is when `show` is false or stderr is not a terminal."""
    if not show or not sys.stderr.isatty():
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, unit=unit, leave=False)
