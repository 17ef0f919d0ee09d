"""What a model declares its loss terms may read is what its forward pass produces."""
import pytest
import torch

from pyhighlights import registry
from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.resolve import build
from pyhighlights.data.batch import Batch


def _batch() -> Batch:
    lengths = [5, 3]
    width = max(lengths)
    mask = torch.tensor([[1] * n + [0] * (width - n) for n in lengths])
    word_ids = torch.where(mask.bool(), torch.arange(width).expand(2, width), torch.tensor(-1))
    return Batch(input_ids=torch.randint(1, 12, (2, width)) * mask, attention_mask=mask, word_ids=word_ids,
                 word_mask=mask.clone(), highlights=torch.full((2, width), -1), labels=torch.tensor([0, 1]),
                 sample_ids=torch.arange(2))


@pytest.mark.parametrize("name", registry.available("model"))
def test_declared_outputs_are_the_forward_outputs(name):
    torch.manual_seed(0)
    factory = BackboneFactory({"name": "gru", "hidden_size": 4, "dropout": 0.0},
                              embedding_matrix=torch.randn(12, 4), freeze_embeddings=True)
    model = build("model", {"name": name}, path="model", backbone_factory=factory, num_classes=2).eval()
    with torch.no_grad():
        produced = {key for key, value in model(_batch()).items() if value is not None}
    configuration = registry.entry("model", name).configuration
    # in evaluation, with the registered defaults: all but what an option produces in training only
    assert produced == set(configuration.outputs["losses"]) - configuration.training_outputs
