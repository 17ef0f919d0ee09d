"""The random baseline keeps words at its rate, independently of the text, and never selects padding."""
import torch

from pyhighlights.components.selectors import RandomSelector


def test_random_selector_rate_and_padding():
    torch.manual_seed(0)
    selector = RandomSelector(input_size=4, rate=0.2)
    word_mask = torch.ones(64, 100)
    word_mask[:, 80:] = 0
    states = torch.randn(64, 100, 4)
    mask = selector(states, word_mask).mask
    assert mask[:, 80:].sum() == 0
    rate = mask[:, :80].mean().item()
    assert abs(rate - 0.2) < 0.02  # 5120 Bernoulli(0.2) draws: std 0.0056
    selector.eval()
    first = selector(states, word_mask).mask
    assert torch.equal(first, selector(states * 3, word_mask).mask)  # evaluation: reproducible, text-blind


def test_random_model_trains(tiny_beer_dir, tmp_path):
    from pyhighlights.config.compose import compose_config
    from pyhighlights.testing import tiny_overrides
    from pyhighlights.training.run import run

    metrics = run(compose_config(tiny_overrides(tiny_beer_dir, "model=random")), tmp_path / "r")["seeds"]["0"]
    assert abs(metrics["test/sparsity"] - 0.15) < 0.03
