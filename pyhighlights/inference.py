"""A trained model from its checkpoint alone, and highlights of raw text.

``load`` reads the description every checkpoint carries (see
:mod:`pyhighlights.training.description`): no corpus, run directory or Hydra
config is needed. Raw text is split into words at whitespace, as the corpus
readers split their files; a transformer's documents longer than its token
budget lose whole words at the end, as in training.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from pyhighlights.data.batch import Document, mask_runs


class NotDescribed(ValueError):
    """A checkpoint without the description (written before checkpoints carried it, or by other code)."""


def read_description(checkpoint: dict[str, Any], path: str | Path) -> dict[str, Any]:
    from pyhighlights.training.description import FORMAT, KEY

    description = checkpoint.get(KEY)
    if description is None:
        raise NotDescribed(f"{path}: the checkpoint does not describe its model (no {KEY!r} entry); it was "
                           f"written by an older pyhighlights: train the run again to load it without its corpus")
    if description.get("format") != FORMAT:
        raise NotDescribed(f"{path}: checkpoint description format {description.get('format')!r}; "
                           f"this pyhighlights reads format {FORMAT}")
    return description


def restore_encoder(described: dict[str, Any]):
    """The text encoder a checkpoint describes: a word vocabulary, or a tokenizer read from its directory."""
    if described["kind"] == "words":
        from pyhighlights.data.encoding import WordEncoder
        from pyhighlights.data.vocabulary import Vocabulary

        return WordEncoder(Vocabulary.from_words(described["words"]))
    if described["kind"] == "subwords":
        from pyhighlights.data.subword import SubwordEncoder, load_tokenizer, local_model_dir

        return SubwordEncoder(load_tokenizer(local_model_dir(described["tokenizer"])), described["max_tokens"])
    raise NotDescribed(f"text encoder of kind {described['kind']!r}: expected words or subwords")


def load(path: str | Path, device: str | torch.device = "cpu"):
    """The model a training checkpoint holds, in eval mode on ``device``, ready to :meth:`highlight` text.

    The model also carries ``text_encoder``, ``label_names`` and ``specs``
    (the validated configuration of the run that trained it).
    """
    from pyhighlights.checkpoint_file import read_checkpoint
    from pyhighlights.components.backbones.base import BackboneFactory
    from pyhighlights.config.resolve import build, validate

    checkpoint = read_checkpoint(Path(path).expanduser())
    description = read_description(checkpoint, path)
    specs = description["specs"]
    # Re-validated: parameters added since the run get their defaults.
    backbone_spec = validate("backbone", specs["backbone"], "backbone")
    model_spec = validate("model", specs["model"], "model")
    factory = BackboneFactory.restore(backbone_spec, description["backbone_runtime"])
    label_names = list(description["label_names"])
    model = build("model", model_spec, path="model", backbone_factory=factory, num_classes=len(label_names))
    model.load_state_dict(checkpoint["state_dict"], strict=True)
    model.text_encoder = restore_encoder(description["text_encoder"])
    model.label_names = label_names
    model.specs = specs
    return model.eval().to(device)


@dataclass
class Highlight:
    """One text's highlight: the words the model read, the kept ones, and the prediction from them."""

    words: list[str]
    selected: list[int]  # indices into words
    prediction: int
    label: str
    probabilities: list[float]
    words_cut: int = 0  # words past the transformer's token budget, not read
    spans: list[tuple[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        chosen = set(self.selected)
        self.spans = mask_runs([int(i in chosen) for i in range(len(self.words))])

    @property
    def kept(self) -> list[str]:
        return [self.words[i] for i in self.selected]

    def marked(self) -> str:
        """The text with each kept span in [brackets]."""
        words = list(self.words)
        for start, end in self.spans:
            words[start] = "[" + words[start]
            words[end - 1] = words[end - 1] + "]"
        return " ".join(words)


@torch.no_grad()
def highlight(model, texts: str | list[str], batch_size: int = 32) -> Highlight | list[Highlight]:
    """The selection and prediction of ``model`` (from :func:`load`) for raw text; one result per text."""
    from pyhighlights.data.collate import BatchCollator
    from pyhighlights.data.encoding import encode_document

    encoder = getattr(model, "text_encoder", None)
    if encoder is None:
        raise ValueError("the model has no text encoder: load it with pyhighlights.load(<checkpoint>)")
    single = isinstance(texts, str)
    prepared = [_document(i, text, encoder) for i, text in enumerate([texts] if single else list(texts))]
    documents = [document for document, _ in prepared]
    examples = [encode_document(d, i, encoder) for i, d in enumerate(documents)]
    order = sorted(range(len(examples)), key=lambda i: examples[i].num_tokens)
    # Padded as the model was trained (model.pad_to): a recurrent encoder run over the padding depends on it.
    collate = BatchCollator(encoder.pad_id, getattr(model, "pad_to", None))
    device = next(model.parameters()).device
    results: dict[int, Highlight] = {}
    model.eval()
    for start in range(0, len(order), batch_size):
        batch = collate([examples[i] for i in order[start:start + batch_size]]).to(device)
        outputs = model(batch)
        probabilities = torch.softmax(outputs["logits"].float(), dim=-1)
        kept = (outputs["mask"] > 0.5) & batch.word_mask.bool()
        for row, index in enumerate(batch.sample_ids.tolist()):
            document = documents[index]
            predicted = int(probabilities[row].argmax())
            results[index] = Highlight(
                words=document.tokens, selected=torch.nonzero(kept[row]).flatten().tolist(), prediction=predicted,
                label=model.label_names[predicted], probabilities=probabilities[row].tolist(),
                words_cut=prepared[index][1])
    ordered = [results[i] for i in range(len(documents))]
    return ordered[0] if single else ordered


def _document(index: int, text: str, encoder) -> tuple[Document, int]:
    """The text as a document the encoder can take, and how many words were cut to fit it."""
    words = str(text).split()
    if not words:
        raise ValueError(f"text {index}: no words (empty or whitespace only)")
    document = Document(doc_id=f"text{index}", tokens=words, label=0)
    fitted = encoder.truncate(document) if hasattr(encoder, "truncate") else document
    return fitted, len(words) - len(fitted.tokens)
