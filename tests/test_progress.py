"""Progress bars (issue 20): drawn only when stderr is a terminal, and cleared when done, so
no bar is left in front of the message that follows (tests/test_cli.py checks the other
side: nothing but the message when stderr is not a terminal)."""
import io
import sys

from spacy_dynoracle.progress import progress_bar


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_bar_on_a_terminal_is_cleared_when_done(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(progress_bar(range(3), "parsing", "doc")) == [0, 1, 2]
    drawn = terminal.getvalue()
    assert "parsing" in drawn and "doc" in drawn           # the bar was drawn
    assert drawn.rsplit("\r", 1)[-1].strip() == ""         # and nothing of it is left on the line


def test_no_bar_when_stderr_is_not_a_terminal_or_when_not_asked(monkeypatch):
    for stderr, show in ((io.StringIO(), True), (Terminal(), False)):
        monkeypatch.setattr(sys, "stderr", stderr)
        items = range(3)
        assert progress_bar(items, "parsing", "doc", show=show) is items
        assert stderr.getvalue() == ""
