"""The package's parser model architectures (spaCy's `architectures` registry; also listed
as `spacy_architectures` entry points in pyproject.toml, so a config naming one resolves
before anything imports this module). Saved configs name them: keep the names.

Both are spaCy's `spacy.TransitionBasedParser.v2` (tok2vec -> Linear, PrecomputableAffine
over nF state tokens, optional zero-initialised upper Linear), built by `transition_model`;
they differ in which state tokens they read:

* `spacy_dynoracle.WindowParserModel.v1`: the window (b0, s0) only, spaCy's
  `StateC.set_context_tokens(ids, 2)`, so that every move's score is a function of the
  window, which the charts of exact decoding read exactly (exact_decoding.py,
  docs/tabulation.md; docs/specs/dp_tabulation.md §5.3).
* `spacy_dynoracle.SpineParserModel.v1`: a feature template chosen per system (issue 5
  item 3; docs/specs/spacy_integration.md §1.5 (b)), tokens from
  `spine_features.fill_token_ids` instead of `StateC.set_context_tokens`. Since spaCy's C
  parsing loop (`Parser._parseC`) hard-codes `set_context_tokens`,
  `DynOracleParser.greedy_parse` steps these models in Python (`model.attrs["python_step_loop"]`).

      [components.parser.model]
      @architectures = "spacy_dynoracle.SpineParserModel.v1"
      feature_template = "spine"     # or "base" (spaCy's 8 tokens, for comparisons)
      max_k = 2                      # the lr_spine cap the template covers
      state_type = "parser"          # accepted so a TransitionBasedParser.v2 block can
      extra_state_tokens = false     # switch @architectures and nothing else
      hidden_width = 64
      maxout_pieces = 2
      use_upper = true
      nO = null

Imports nothing compiled at module level (an entry point, imported by the factory too).
"""
from typing import Optional

import numpy
from spacy.ml.models.parser import _define_lower, _define_upper, resize_output
from spacy.ml.parser_model import ParserStepModel
from spacy.ml.tb_framework import TransitionModel
from spacy.util import registry
from thinc.api import Linear, Model, chain, list2array, use_ops

from . import load_compiled

WINDOW_FEATURES = 2          # StateC.set_context_tokens(ids, 2): ids = (B0, S0)


def transition_model(tok2vec: Model, n_features: int, hidden_width: int, maxout_pieces: int,
                     use_upper: bool, nO: Optional[int]) -> Model:
    """spaCy's build_tb_parser_model reading `n_features` state tokens."""
    t2v_width = tok2vec.get_dim("nO") if tok2vec.has_dim("nO") else None
    tok2vec = chain(tok2vec, list2array(), Linear(hidden_width, t2v_width))
    tok2vec.set_dim("nO", hidden_width)
    lower = _define_lower(nO=hidden_width if use_upper else nO, nF=n_features,
                          nI=tok2vec.get_dim("nO"), nP=maxout_pieces)
    upper = None
    if use_upper:
        with use_ops("cpu"):
            upper = _define_upper(nO=nO, nI=None)
    return TransitionModel(tok2vec, lower, upper, resize_output)


@registry.architectures("spacy_dynoracle.WindowParserModel.v1")
def build_window_parser_model(tok2vec: Model, hidden_width: int = 64, maxout_pieces: int = 2,
                              use_upper: bool = True, nO: Optional[int] = None) -> Model:
    """spaCy's parser model with the state features restricted to (b0, s0)."""
    if maxout_pieces < 2:
        # spaCy's C predictor (maxout over pieces) and its Python one (relu when nP == 1)
        # differ for one piece; window scores follow the C predictor, so require maxout.
        raise ValueError("WindowParserModel needs maxout_pieces >= 2")
    return transition_model(tok2vec, WINDOW_FEATURES, hidden_width, maxout_pieces, use_upper, nO)


def n_state_tokens(model: Model) -> Optional[int]:
    """The number of state tokens a parser model reads (WINDOW_FEATURES for a window
    model), None if it has no precomputable lower layer."""
    return model.get_ref("lower").maybe_get_dim("nF") if model.has_ref("lower") else None


def spine_n_features(template: str, max_k: int) -> int:
    """Number of feature tokens (kept in sync with spine_features.n_features)."""
    if template == "base":
        return 8
    if template == "spine":
        return 8 + max(0, max_k - 2) + 2 * max(0, max_k - 1)
    raise ValueError(f"unknown feature template {template!r}; choose 'base' or 'spine'")


@registry.architectures("spacy_dynoracle.SpineParserModel.v1")
def build_spine_parser_model(
    tok2vec: Model,
    feature_template: str = "spine",
    max_k: int = 2,
    hidden_width: int = 64,
    maxout_pieces: int = 2,
    use_upper: bool = True,
    nO: Optional[int] = None,
    state_type: str = "parser",
    extra_state_tokens: bool = False,
) -> Model:
    # state_type / extra_state_tokens are spacy.TransitionBasedParser.v2's: accepting
    # their only meaningful values lets a config swap the architecture in place.
    if state_type != "parser":
        raise ValueError(f"SpineParserModel.v1 builds a dependency parser model; "
                         f"state_type must be 'parser', not {state_type!r}")
    if extra_state_tokens:
        raise ValueError("SpineParserModel.v1: extra_state_tokens is not supported; the "
                         "feature_template ('base' or 'spine') chooses the tokens")
    model = transition_model(tok2vec, spine_n_features(feature_template, max_k), hidden_width,
                             maxout_pieces, use_upper, nO)
    model._func = spine_forward
    model.attrs["feature_template"] = feature_template
    model.attrs["max_k"] = max_k
    model.attrs["python_step_loop"] = True
    return model


def spine_forward(model, X, is_train):
    step_model = SpineStepModel(
        X,
        model.layers,
        unseen_classes=model.attrs["unseen_classes"],
        train=is_train,
        has_upper=model.attrs["has_upper"],
    )
    step_model.feature_template = model.attrs["feature_template"]
    step_model.max_k = model.attrs["max_k"]
    return step_model, step_model.finish_steps


class SpineStepModel(ParserStepModel):
    feature_template = "spine"
    max_k = 2

    def get_token_ids(self, states):
        states = [state for state in states if not state.is_final()]
        ids = numpy.full((len(states), self.state2vec.nF), -1, dtype="i")
        if states:
            load_compiled("spine_features").fill_token_ids(
                states, ids, self.feature_template, self.max_k)
        return ids
