"""model=hardkuma's registered defaults and experiment=hardkuma_beer_appearance against the reference.

The table below was read from github.com/bastings/interpretable_predictions (commit fef6183), not from our
configs: ``latent_rationale/beer/util.py get_args`` defaults, the README's Beer command for aspect 0 (``--model
latent --aspect 0 --scheduler exponential --dependent-z --selection 0.13 --lasso 0.02``), ``nn/kuma_gate.py``
(support) and ``common/latent.py DependentLatentModel`` (z_rnn_size 30).
"""
import pytest
import torch

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import resolve_specs

REFERENCE = {"lr": 4e-4, "weight_decay": 2e-6, "max_grad_norm": 5.0, "dropout": 0.2, "lambda_init": 1e-5,
             "lambda_min": 1e-12, "lambda_max": 5.0, "lagrange_lr": 0.05, "lagrange_alpha": 0.5, "lr_decay": 0.97,
             "min_lr": 5e-5, "selection": 0.13, "lasso": 0.02, "support_low": -0.1, "support_high": 1.1,
             "z_rnn_size": 30,
             "batch_size": 256, "epochs": 100, "hidden_per_direction": 200}


def settings(specs):
    m, losses = specs.model, specs.model["losses"]
    l0, lasso = losses["sparsity"], losses["continuity"]
    return {"lr": m["lr"], "weight_decay": m["weight_decay"], "max_grad_norm": m["grad_clip"],
            "dropout": m["encoder_dropout"], "lambda_init": l0["multiplier_init"], "lambda_min": l0["multiplier_min"],
            "lambda_max": l0["multiplier_max"], "lagrange_lr": l0["multiplier_lr"], "lagrange_alpha": l0["smoothing"],
            "lr_decay": m["lr_decay"], "min_lr": m["min_lr"], "selection": l0["target"], "lasso": lasso["target"],
            "support_low": m["selector"]["support_low"], "support_high": m["selector"]["support_high"],
            "z_rnn_size": m["selector"]["dependent_size"]}


def test_the_registered_defaults_are_the_reference_beer_settings():
    specs = resolve_specs(compose_config(["model=hardkuma"]))
    assert settings(specs) == pytest.approx({k: v for k, v in REFERENCE.items() if k in settings(specs)})
    losses = specs.model["losses"]
    assert (losses["sparsity"]["name"], losses["continuity"]["name"]) == ("hardkuma_l0", "hardkuma_transitions")
    assert losses["sparsity"]["mode"] == losses["continuity"]["mode"] == "constraint"
    # one multiplier setting for both constraints, as the reference's get_loss uses one for both
    assert {k: v for k, v in losses["continuity"].items() if k.startswith(("multiplier", "smoothing"))} == \
        {k: v for k, v in losses["sparsity"].items() if k.startswith(("multiplier", "smoothing"))}
    assert specs.model["selector"]["dependent"] and specs.model["selector"]["dependent_cell"] == "rcnn"
    assert specs.model["predictor"]["dropout"] == pytest.approx(0.2)  # Classifier: dropout before the output layer


def test_the_beer_appearance_experiment_is_the_readme_command():
    specs = resolve_specs(compose_config(["experiment=hardkuma_beer_appearance"]))
    got = settings(specs)
    got.update(batch_size=specs.trainer["batch_size"], epochs=specs.trainer["max_epochs"],
               hidden_per_direction=specs.backbone["hidden_size"] // 2)
    assert got == pytest.approx(REFERENCE)
    assert specs.dataset["aspect"] == "appearance" and specs.dataset["max_length"] == 256
    assert specs.embeddings["trainable"] is False
    assert (specs.trainer["monitor"], specs.trainer["mode"]) == ("val/loss", "min")


def test_the_learning_rate_decays_per_epoch_to_its_floor():
    from pyhighlights.components.backbones.base import BackboneFactory
    from pyhighlights.config.resolve import build

    specs = resolve_specs(compose_config(["model=hardkuma", "backbone.hidden_size=8", "embeddings.dim=4"]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=torch.zeros(10, 4), freeze_embeddings=True)
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2)
    scheduler = model.configure_optimizers()["lr_scheduler"]["scheduler"]
    rates = []
    for _ in range(60):
        rates.append(scheduler.get_last_lr()[0])
        scheduler.optimizer.step()
        scheduler.step()
    # lr_e = max(5e-5, 4e-4 x 0.97^e): 0.97^e reaches 1/8 at e = 68.3, so 60 epochs stay above the floor ...
    assert rates[:3] == pytest.approx([4e-4, 4e-4 * 0.97, 4e-4 * 0.97 ** 2])
    assert rates[59] == pytest.approx(4e-4 * 0.97 ** 59)
    for _ in range(20):
        scheduler.optimizer.step()
        scheduler.step()
    assert scheduler.get_last_lr()[0] == pytest.approx(5e-5)  # ... and epoch 80 is at it


@pytest.mark.parametrize("model", [["model=hardkuma"],
                                   # any model using the terms: their state is every loss term's checkpoint state
                                   ["model=rnp", "model/selector=hardkuma", "model/losses/sparsity=hardkuma_l0",
                                    "model/losses/continuity=hardkuma_transitions"]])
def test_the_multipliers_travel_in_the_checkpoint(model):
    from pyhighlights.components.backbones.base import BackboneFactory
    from pyhighlights.config.resolve import build

    specs = resolve_specs(compose_config([*model, "backbone.hidden_size=8", "embeddings.dim=4"]))

    def fresh():
        factory = BackboneFactory(specs.backbone, embedding_matrix=torch.zeros(10, 4), freeze_embeddings=True)
        return build("model", specs.model, path="model", backbone_factory=factory, num_classes=2)

    trained, restored = fresh(), fresh()
    trained.losses.terms["sparsity"].load_state_dict({"multiplier": 0.25, "moving_average": -0.01})
    trained.losses.terms["continuity"].load_state_dict({"multiplier": 3.0, "moving_average": 0.2})
    checkpoint = {}
    trained.on_save_checkpoint(checkpoint)
    restored.on_load_checkpoint(checkpoint)
    for name in ("sparsity", "continuity"):
        assert restored.losses.terms[name].state_dict() == trained.losses.terms[name].state_dict()


def test_any_model_takes_the_gate_and_its_terms():
    from pyhighlights.components.backbones.base import BackboneFactory
    from pyhighlights.components.hardkuma import HardKumaSelector
    from pyhighlights.components.hardkuma_losses import ExpectedL0Term
    from pyhighlights.config.resolve import build

    specs = resolve_specs(compose_config(["model=rnp", "model/selector=hardkuma", "model/losses/sparsity=hardkuma_l0",
                                          "model.losses.sparsity.target=0.2", "backbone.hidden_size=8",
                                          "embeddings.dim=4"]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=torch.zeros(10, 4), freeze_embeddings=True)
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2)
    assert isinstance(model.selector, HardKumaSelector)
    assert isinstance(model.losses.terms["sparsity"], ExpectedL0Term) and model.losses.terms["sparsity"].target == 0.2
