"""The benchmark's plain PyTorch G-RAT (benchmarks/plain_grat.py) computes what our G-RAT computes.

The speed ratios the benchmark prints mean something only if the yardstick does the same arithmetic: with our
model's weights copied in, the plain loop's guider (attention, logits), rationaliser (selector and class logits)
and its rationaliser loss at a half-annealed f agree with ours in eval mode (no dropout, no noise, the
deterministic mask), in float64, on the fixed four-document batch of the reference-number tests."""
from __future__ import annotations

import sys
from pathlib import Path

import torch
from reference_draws import EMB, VOCAB, values
from reference_steps import padded_batch, small_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from plain_grat import PlainGRAT, settings_of  # noqa: E402


def gru_weights(ours, prefix: str) -> dict[str, torch.Tensor]:
    out = {}
    for direction, layers in (("", ours.forward_layers), ("_reverse", ours.backward_layers)):
        for name, p in layers[0].named_parameters():
            out[f"{prefix}.{name}{direction}"] = p.detach()
    return out


def plain_copy(model):
    plain = PlainGRAT(values("embedding", (VOCAB, EMB)), hidden=model.selector_encoder.output_size,
                      **settings_of(model))
    guider, rationaliser = plain.guider.double(), plain.rationaliser.double()
    g = model.guider
    state = {**gru_weights(g.encoder, "gru"), "embedding.weight": g.encoder.embedding.weight.detach()}
    for part in ("residual", "norm", "scorer", "projection", "pool_scorer", "classifier"):
        state |= {f"{part}.{k}": v for k, v in getattr(g, part).state_dict().items()}
    guider.load_state_dict(state)
    state = {**gru_weights(model.selector_encoder, "selector_gru"),
             **gru_weights(model.predictor_encoder, "predictor_gru"),
             "embedding.weight": model.selector_encoder.embedding.weight.detach()}
    state |= {f"norm.{k}": v for k, v in model.norm.state_dict().items()}
    state |= {f"selector_head.{k}": v for k, v in model.selector.scorer.state_dict().items()}
    head = [m for m in model.predictor.modules() if isinstance(m, torch.nn.Linear)]
    assert len(head) == 1, "the reference predictor is one linear layer"
    state |= {f"predictor_head.{k}": v for k, v in head[0].state_dict().items()}
    rationaliser.load_state_dict(state)
    return plain


def test_plain_loop_computes_our_grat():
    model, _ = small_model(["model=grat"], lambda name: name)
    model.eval()
    batch = padded_batch(model)
    plain = plain_copy(model)
    plain.guider.eval(), plain.rationaliser.eval()
    ids, mask = batch.input_ids, batch.attention_mask.double()
    with torch.no_grad():
        ours_read = model.guider(ids, batch.attention_mask)
        attention, guider_logits = plain.guider(ids, mask)
        torch.testing.assert_close(attention, ours_read.attention, rtol=0, atol=1e-12)
        torch.testing.assert_close(guider_logits, ours_read.logits, rtol=0, atol=1e-12)
        outputs = model(batch)
        selector_logits, keep, logits = plain.rationaliser(ids, mask)
        torch.testing.assert_close(selector_logits, outputs["selector_logits"], rtol=0, atol=1e-12)
        torch.testing.assert_close(logits, outputs["logits"], rtol=0, atol=1e-12)
        steps = int(0.5 / model.decay) + 1  # f = 0.5: both annealed terms count
        model.rationaliser_steps.fill_(steps)
        plain.steps = steps
        assert model.scales() == {"guide": 0.5, "match": 0.5}
        total, _ = model.loss(outputs, scales=model.scales())
        torch.testing.assert_close(plain.rationaliser_loss(ids, mask, batch.labels), total, rtol=0, atol=1e-10)
