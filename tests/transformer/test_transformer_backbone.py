"""The transformer backbone: local loading only, removal through the attention mask, gradients, frozen, lr."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from transformer_fixtures import tiny_bert  # noqa: F401 (pytest fixtures)
from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.components.backbones.transformer import TransformerBackbone, removal_bias
from pyhighlights.config.resolve import ConfigError, build
from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.inputs import prepare_inputs


def _inputs(batch: int = 2, length: int = 7, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(5, 30, (batch, length), generator=generator)
    input_ids[:, 0], input_ids[:, -1] = 2, 3  # [CLS] ... [SEP]
    return input_ids, torch.ones(batch, length, dtype=torch.long)


@pytest.mark.parametrize("path, message", [
    (None, "backbone.path: required for backbone=transformer"),
    ("bert-base-uncased", "'bert-base-uncased' is not a local model directory"),
])
def test_paths_that_are_not_local_models_are_refused(path, message) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        build("backbone", {"name": "transformer", "path": path})
    assert "downloads are disabled" in str(caught.value).lower()
    assert isinstance(caught.value, ValueError)


def test_directory_without_config_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="has no config.json"):
        TransformerBackbone(path=str(tmp_path))


def test_states_over_tokens(tiny_bert: Path) -> None:
    backbone = build("backbone", {"name": "transformer", "path": str(tiny_bert)}).eval()
    input_ids, mask = _inputs()
    states = backbone(input_ids, mask)
    assert states.shape == (2, 7, 32) and backbone.output_size == 32
    assert backbone.model.pooler is None  # unused parameters would break DDP
    # keep = all ones is the same as no keep
    assert torch.allclose(backbone(input_ids, mask, keep=torch.ones(2, 7)), states, atol=1e-6)


def test_removed_tokens_are_removed_from_attention(tiny_bert: Path) -> None:
    backbone = TransformerBackbone(path=str(tiny_bert)).eval()
    input_ids, mask = _inputs()
    keep = torch.ones(2, 7)
    keep[0, [2, 3]] = 0.0
    changed = input_ids.clone()
    changed[0, [2, 3]] = torch.tensor([7, 9])
    kept = [0, 1, 4, 5, 6]
    before = backbone(input_ids, mask, keep=keep)[0, kept]
    after = backbone(changed, mask, keep=keep)[0, kept]
    assert torch.allclose(before, after, atol=1e-5)
    # ... and the same as the model run on the kept tokens' attention mask alone (padding-style removal).
    hard = mask.clone()
    hard[0, [2, 3]] = 0
    assert torch.allclose(backbone(input_ids, hard)[0, kept], before, atol=1e-5)
    assert not torch.allclose(backbone(input_ids, mask)[0, kept], before, atol=1e-4)


def test_gradient_reaches_the_keep_mask(tiny_bert: Path) -> None:
    backbone = TransformerBackbone(path=str(tiny_bert)).eval()
    input_ids, mask = _inputs()
    keep = torch.ones(2, 7)
    keep[0, 3] = 0.0
    keep.requires_grad_(True)
    states = backbone(input_ids, mask, keep=keep)
    (states * torch.randn_like(states)).sum().backward()
    assert torch.isfinite(keep.grad).all()
    assert keep.grad[0, [1, 2, 4, 5]].abs().min() > 0 and keep.grad[0, 3] == 0
    bias = removal_bias(mask, keep.detach(), torch.float32)
    assert bias.shape == (2, 1, 1, 7) and bias[0, 0, 0, 3] < -1e4 and bias[1].abs().max() == 0


def test_frozen_keeps_weights_and_eval_mode_but_passes_gradients(tiny_bert: Path) -> None:
    backbone = TransformerBackbone(path=str(tiny_bert), frozen=True)
    backbone.train()
    assert not backbone.model.training
    assert not any(p.requires_grad for p in backbone.parameters())
    input_ids, mask = _inputs()
    keep = torch.ones(2, 7, requires_grad=True)
    backbone(input_ids, mask, keep=keep).pow(2).sum().backward()
    assert keep.grad.abs().sum() > 0


def _rnp(tiny_bert: Path, frozen: bool, **optim):
    spec = {"name": "transformer", "path": str(tiny_bert), "frozen": frozen}
    node = {"name": "rnp", **optim}
    return build("model", node, path="model", backbone_factory=BackboneFactory(spec), num_classes=2)


def test_encoder_learning_rate_reaches_the_transformer(tiny_bert: Path) -> None:
    model = _rnp(tiny_bert, False, lr=1e-3, encoder_lr=2e-5)
    groups = {g["name"]: g for g in model.configure_optimizers().param_groups}
    encoder_params = {id(p) for p in model.selector_encoder.model.parameters()}
    assert groups["encoder"]["lr"] == pytest.approx(2e-5) and groups["head"]["lr"] == pytest.approx(1e-3)
    assert encoder_params <= {id(p) for p in groups["encoder"]["params"]}
    frozen = _rnp(tiny_bert, True)
    assert [g["name"] for g in frozen.configure_optimizers().param_groups] == ["head"]


def test_prepare_inputs_truncates_and_reports(tiny_bert: Path) -> None:
    long = Document("long", ["the", "location"] * 10, 1, [0, 1] * 10)
    corpus = Corpus("c", [long], [long], [long], ["negative", "positive"])
    spec = {"name": "transformer", "path": str(tiny_bert), "frozen": False, "max_tokens": 12}
    inputs = prepare_inputs(corpus, spec, {"name": "learned"})
    # 10 tokens for words: "the location" is 1 + 2 tokens, three pairs and one more "the" fill them
    assert corpus.train[0].tokens == ["the", "location"] * 3 + ["the"]
    assert inputs.info["subword_truncation"]["test"]["truncated"] == 1
    assert inputs.info["transformer"]["max_tokens"] == 12 and "not used" in inputs.info["embeddings"]
    input_ids, word_ids = inputs.text_encoder.encode(corpus.test[0])
    assert len(input_ids) <= 12 and max(word_ids) == 6
    assert inputs.backbone_runtime == {}  # the encoder reads its own tokenizer's ids; nothing else to pass
    assert isinstance(BackboneFactory(spec, **inputs.backbone_runtime)(), TransformerBackbone)


def test_trainable_encoder_starts_in_training_mode(tiny_bert: Path) -> None:
    # from_pretrained hands back an eval-mode model; Lightning would keep dropout off all training.
    backbone = TransformerBackbone(path=str(tiny_bert))
    assert backbone.training and backbone.model.training
    assert all(m.training for m in backbone.model.modules())
