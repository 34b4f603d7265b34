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
  item 3, issue 19; docs/specs/spacy_integration.md §1.5 (b)), tokens from
  `state_features.fill_state` instead of `StateC.set_context_tokens`: "spine" (lr_spine),
  "attardi", "swap", and spaCy's own "base" (8 tokens) and "extra" (13, spaCy's
  `extra_state_tokens`) for like-with-like comparisons; the templates and why each token
  is there are in state_features.pyx. Since spaCy's C parsing loop (`Parser._parseC`)
  hard-codes `set_context_tokens`, `DynOracleParser.greedy_parse` parses these models with
  `state_features.greedy_parse`, spaCy's loop reading the template
  (`model.attrs["feature_template"]`).

      [components.parser.model]
      @architectures = "spacy_dynoracle.SpineParserModel.v1"
      feature_template = "spine"     # "attardi", "swap", "base" or "extra"
      max_k = 2                      # K: lr_spine's max_k, attardi's degree
      state_type = "parser"          # accepted so a TransitionBasedParser.v2 block can
      extra_state_tokens = false     # switch @architectures and nothing else
      hidden_width = 64
      maxout_pieces = 2
      use_upper = true
      nO = null

* `spacy_dynoracle.EasyFirstModel.v1`: easy-first's model (transition_system =
  "easy_first", docs/systems/easy_first.md): the same tok2vec, PrecomputableAffine and
  upper Linear, but what it scores is an adjacent pair of easy-first's pending list, read
  from 10 token slots (the pair's window and built children, easy_first_parse.pyx), with
  1 + 2L outputs (ROOT; RIGHT and LEFT per label). Its forward gives the precomputed slot
  table of the batch (`EasyFirstScores`); the parse loop and the training episode run over
  it in Cython and hand back its gradients.

      [components.parser.model]
      @architectures = "spacy_dynoracle.EasyFirstModel.v1"
      hidden_width = 64
      maxout_pieces = 2
      nO = null
      use_upper = true               # accepted, with state_type = "parser" and
                                     # extra_state_tokens = false, so a
                                     # TransitionBasedParser.v2 block can switch
                                     # @architectures and nothing else

* `spacy_dynoracle.AffixMultiHashEmbed.v1` (affix_embed.py): a tok2vec embed, spaCy's
  MultiHashEmbed.v2 plus hashed prefixes and suffixes of several lengths; a
  `[components.tok2vec.model.embed]` block switches to it by its `@architectures` alone.

Imports nothing compiled at module level (an entry point, imported by the factory too).
"""
from typing import Optional

import numpy
from spacy.ml.models.parser import _define_lower, _define_upper, resize_output
from spacy.ml.parser_model import ParserStepModel
from spacy.ml.tb_framework import TransitionModel
from spacy.util import registry
from thinc.api import Linear, Model, chain, list2array, use_ops

from . import affix_embed  # noqa: F401  registers AffixMultiHashEmbed.v1 (also an entry point)
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


def check_parser_model_keys(architecture: str, state_type: str, extra_state_tokens: bool,
                            tokens: str) -> None:
    """state_type / extra_state_tokens are spacy.TransitionBasedParser.v2's: accepting
    their only meaningful values lets a config swap the architecture in place."""
    if state_type != "parser":
        raise ValueError(f"{architecture} builds a dependency parser model; "
                         f"state_type must be 'parser', not {state_type!r}")
    if extra_state_tokens:
        raise ValueError(f"{architecture}: extra_state_tokens is not supported; {tokens}")


def n_state_tokens(model: Model) -> Optional[int]:
    """The number of state tokens a parser model reads (WINDOW_FEATURES for a window
    model), None if it has no precomputable lower layer."""
    return model.get_ref("lower").maybe_get_dim("nF") if model.has_ref("lower") else None


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
    check_parser_model_keys("SpineParserModel.v1", state_type, extra_state_tokens,
                            "the feature_template chooses the tokens (\"extra\" = spaCy's 13)")
    n_features = load_compiled("state_features").n_features(feature_template, max_k)
    model = transition_model(tok2vec, n_features, hidden_width, maxout_pieces, use_upper, nO)
    model._func = spine_forward
    model.attrs["feature_template"] = feature_template
    model.attrs["max_k"] = max_k
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
            load_compiled("state_features").fill_token_ids(
                states, ids, self.feature_template, self.max_k)
        return ids


@registry.architectures("spacy_dynoracle.EasyFirstModel.v1")
def build_easy_first_model(tok2vec: Model, hidden_width: int = 64, maxout_pieces: int = 2,
                           use_upper: bool = True, nO: Optional[int] = None,
                           state_type: str = "parser", extra_state_tokens: bool = False) -> Model:
    """Scores of easy-first's adjacent pending pairs (docs/systems/easy_first.md): the
    shared builder with one state token per slot of easy_first_parse.pyx."""
    check_parser_model_keys("EasyFirstModel.v1", state_type, extra_state_tokens,
                            "the pair's 10 slots are fixed (easy_first_parse.pyx)")
    if not use_upper:
        raise ValueError("EasyFirstModel.v1 needs use_upper = true (its output layer gives "
                         "the 1 + 2L scores of a pair)")
    if maxout_pieces < 1:
        raise ValueError(f"EasyFirstModel.v1: maxout_pieces must be >= 1, not {maxout_pieces}")
    n_slots = load_compiled("easy_first_parse").N_SLOTS
    model = transition_model(tok2vec, n_slots, hidden_width, maxout_pieces, True, nO)
    model._func = easy_first_forward
    model.attrs["easy_first"] = True
    return model


class EasyFirstScores:
    """A batch's precomputed first layer (Yf: row 0 the padding, row row0s[d] + t token t of
    Doc d, per slot) and the other layers' parameters, as easy_first_parse reads them."""

    def __init__(self, Yf, lower_b, upper_W, upper_b, row0s):
        self.Yf = Yf
        self.lower_b = lower_b
        self.upper_W = upper_W
        self.upper_b = upper_b
        self.row0s = row0s

    def gradients(self):
        """Zeroed arrays for train_batch's gradients: (dYf, d lower_b, d upper_W, d upper_b)."""
        return tuple(numpy.zeros(a.shape, dtype="f")
                     for a in (self.Yf, self.lower_b, self.upper_W, self.upper_b))


def easy_first_forward(model: Model, docs, is_train: bool):
    tok2vec, lower, upper = (model.get_ref(name) for name in ("tok2vec", "lower", "upper"))
    X, backprop_tok2vec = tok2vec(docs, is_train)
    Yf, _ = lower(X, False)          # the backward below reads dYf, not (dY, ids)
    row0s = numpy.cumsum([1] + [len(doc) for doc in docs[:-1]]).tolist() if docs else []
    scores = EasyFirstScores(numpy.ascontiguousarray(Yf, dtype="f"),
                             numpy.ascontiguousarray(lower.get_param("b"), dtype="f"),
                             numpy.ascontiguousarray(upper.get_param("W"), dtype="f"),
                             numpy.ascontiguousarray(upper.get_param("b"), dtype="f"), row0s)

    def backprop(gradients):
        """gradients: scores.gradients() filled by easy_first_parse.train_batch."""
        dYf, d_lower_b, d_upper_W, d_upper_b = gradients
        upper.inc_grad("W", d_upper_W)
        upper.inc_grad("b", d_upper_b)
        lower.inc_grad("b", d_lower_b)
        lower.inc_grad("pad", dYf[:1])
        W = lower.get_param("W")
        nF, nO, nP, nI = W.shape
        dY = dYf[1:].reshape((dYf.shape[0] - 1, nF * nO * nP))
        lower.inc_grad("W", model.ops.gemm(dY, X, trans1=True).reshape(W.shape))
        return backprop_tok2vec(model.ops.gemm(dY, W.reshape((nF * nO * nP, nI))))

    return scores, backprop
