"""Select-then-predict (rationalization) models on PyTorch Lightning.

``pyhighlights.load(checkpoint)`` returns a trained model ready to highlight
raw text: ``pyhighlights.highlight(model, "a crisp golden pour ...")`` or
``model.highlight(...)``.
"""


def load(path, device="cpu"):
    """The model a checkpoint written by a training run holds, in eval mode (see :mod:`pyhighlights.inference`)."""
    from pyhighlights.inference import load as load_checkpoint

    return load_checkpoint(path, device)


def highlight(model, texts, batch_size=32):
    """Highlights and predictions of ``model`` for a text or a list of texts."""
    from pyhighlights.inference import highlight as highlight_texts

    return highlight_texts(model, texts, batch_size)
