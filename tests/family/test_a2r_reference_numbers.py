"""A2R's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/Gorov/Understanding_Interlocking at commit
135863153baf8307699ee2dc271f6e64211854fb, ``run_beer_arc2_sentence_level_neurips21.ipynb``: its class
``SentenceA2R`` (cell 3) taken from the notebook and run as written, in float64, with vocabulary 20,
embeddings 6, ``rnn_dim`` 4 (a bidirectional GRU of 8), every weight ``values(name, shape)`` by the
reference's parameter name and both embedding tables initialised from ``values("embedding")``, each its own
copy (``from_pretrained`` wraps one tensor for both; the notebook's ``model.cuda()`` copies each); Adam
as cell 7 builds them (``gen_vars()`` at lr 1e-4, ``pred_vars()`` at 1e-3); three batches of cell 7's loop,
each the four documents of tests/reference_draws.py padded to their longest (12), the Gumbel draw replaced
by ``fixed_draws``. The recording read the loop's loss values and, around each ``step()``, the gradient
norms of that optimiser's parameters and every parameter's sum and norm after it.

The notebook selects one sentence per document by REINFORCE; our batches have no sentences and our
generator is a per-word selector. The run therefore used a minimal shim: every word is a sentence
(``sent_mask[b, t, t]`` = 1 on real words), so the notebook's predictor code -- from ``rationale_ =
sent_probs.unsqueeze(-1)`` to its ``return``, both predictors sharing ``pred_embd`` and ``pred_gru``, the
attention-weighted soft path, the masked, max-pooled hard path with its ``batch_mask`` -- and its loop's
arithmetic (the step order, both cross-entropies, the two ``kl_div`` calls) ran verbatim; only the generator
block was replaced by a word-level head (``gen_fc_word``, ``nn.Linear(8, 2)``), a hard Gumbel sample and
the softmax of its keep log-odds over the real words as the attention, and the generator step's loss took
our sparsity and continuity terms (target 0.15, weights 10) beside the notebook's CE of the soft predictor.
The notebook's sentence heads ``gen_fc`` and ``gen_fc_token`` are in ``gen_vars()`` but unused on this path
(no gradient; we have no counterpart). The reference's code is not part of this repository.
"""
from __future__ import annotations

import pytest
from reference_steps import padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "gen_embd."), ("selector_encoder.", "gen_gru."),
           ("selector.scorer.", "gen_fc_word."), ("predictor_encoder.embedding.", "pred_embd."),
           ("predictor_encoder.", "pred_gru."), ("predictor.net.1.", "pred_fc_hard."),
           ("attention_predictor.net.1.", "pred_fc.")]
reference_name = renamer(RENAMES)
UNUSED = {"gen_fc.weight", "gen_fc_token.weight"}  # sentence heads of the notebook, not on the word-level path


def test_registered_defaults_are_the_notebooks():
    _, specs = small_model(["model=a2r"], reference_name)
    m, losses = specs.model, specs.model["losses"]
    assert (m["lr"], m["predictor_lr"], m["weight_decay"]) == (1e-4, 1e-3, 0.0)
    assert (m["encoder_dropout"], m["selector"]["dropout"], m["predictor"]["dropout"],
            m["attention_predictor"]["dropout"]) == (0.0, 0.0, 0.0, 0.0)
    assert [losses[t]["weight"] for t in ("task", "soft_task", "divergence")] == [1.0, 1.0, 1.0]
    assert losses["divergence"]["name"] == "symmetric_kl"
    assert (m["hard_from"], m["min_kept"], m["divergence_in_selector"]) == (20, 2, False)
    assert specs.embeddings["trainable"] is True
    assert (m["recurrence"], m["bucket"]) == ("within_length", False)


def test_beer_aroma_is_the_notebooks_setting():
    """run_beer_arc2_sentence_level_neurips21.ipynb: aspect 1, max_seq_len 300, rnn_dim 100, trainable GloVe
    embeddings, batch 500, 60 epochs, the two Adam rates."""
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs

    specs = resolve_specs(compose_config(["experiment=a2r_beer_aroma"]))
    assert (specs.dataset["aspect"], specs.dataset["max_length"]) == ("aroma", 300)
    assert (specs.backbone["hidden_size"], specs.backbone["dropout"]) == (200, 0.0)
    assert specs.embeddings["trainable"] is True
    assert (specs.trainer["batch_size"], specs.trainer["max_epochs"]) == (500, 60)
    assert (specs.model["lr"], specs.model["predictor_lr"], specs.model["hard_from"]) == (1e-4, 1e-3, 20)


def test_a2r_equals_the_reference_on_a_padded_batch():
    model, _ = small_model(["model=a2r"], reference_name)
    assert padded_batch(model).input_ids.shape[1] == 12
    recorder = train_steps(model)
    for step, (got, want) in enumerate(zip(recorder.values, REFERENCE["losses"])):
        for term, value in want.items():
            assert got[f"train/loss/{term}"] == pytest.approx(value, abs=1e-6), (step + 1, term)
    # generator, predictors, generator: one optimiser step per batch
    assert len(recorder.grads) == 3
    for step, (ours, theirs) in enumerate(zip(recorder.grads, REFERENCE["gradients"])):
        mapped = {reference_name(n): g for n, g in ours.items()}
        assert set(mapped) == set(theirs) - UNUSED, (step + 1, set(mapped) ^ (set(theirs) - UNUSED))
        for name, g in mapped.items():
            assert (g is None) == (theirs[name] is None), (step + 1, name)
            assert g is None or g == pytest.approx(theirs[name], abs=1e-6), (step + 1, name, g, theirs[name])
    seen = set()
    for name, _ in model.named_parameters():
        ref = reference_name(name)
        seen.add(ref)
        s1, n1, s3, n3 = REFERENCE["parameters"][ref]
        for batch, want in ((0, (s1, n1)), (2, (s3, n3))):
            got = recorder.params[batch][name]
            assert got == pytest.approx(want, abs=1e-6), (name, batch + 1, got, want)
    assert seen == set(REFERENCE["parameters"]) - UNUSED


def test_the_check_can_fail_with_the_divergence_one_sided():
    """The same batch and draws with the divergence read against a detached soft predictor (the project's
    ``kl`` term, in the same slot) give the soft head another gradient in the predictors' step."""
    model, _ = small_model(["model=a2r", "model.losses.divergence.name=kl"], reference_name)
    recorder = train_steps(model, steps=2)
    assert recorder.grads[1]["attention_predictor.net.1.weight"] != pytest.approx(
        REFERENCE["gradients"][1]["pred_fc.weight"], abs=1e-4)


REFERENCE = {
    "losses": [
        {'soft_task': 0.6809174952361929, 'sparsity': 0.3983870967741935, 'continuity': 0.37037037037037035},
        {'task': 0.8424068226240697, 'soft_task': 0.6808882546623227, 'divergence': 0.35311741755045983},
        {'soft_task': 0.6793359489829196, 'sparsity': 0.4629032258064516, 'continuity': 0.4074074074074074},
    ],
    # per step, the stepped optimiser's parameters: reference name -> |grad| (None: no gradient)
    "gradients": [
        {
            'gen_embd.weight': 0.642687706562874,
            'gen_gru.weight_ih_l0': 0.549434986592003,
            'gen_gru.weight_hh_l0': 0.4348574018291383,
            'gen_gru.bias_ih_l0': 1.021813160623223,
            'gen_gru.bias_hh_l0': 0.5753081370843581,
            'gen_gru.weight_ih_l0_reverse': 0.7541411258051692,
            'gen_gru.weight_hh_l0_reverse': 0.4018358767023682,
            'gen_gru.bias_ih_l0_reverse': 1.3168040236216174,
            'gen_gru.bias_hh_l0_reverse': 0.7587108835539432,
            'gen_fc.weight': None,
            'gen_fc_token.weight': None,
            'gen_fc_word.weight': 2.925168103392387,
            'gen_fc_word.bias': 2.5011158307628274,
        },
        {
            'pred_embd.weight': 0.33843710915246417,
            'pred_gru.weight_ih_l0': 0.17133046298323554,
            'pred_gru.weight_hh_l0': 0.05192380336259781,
            'pred_gru.bias_ih_l0': 0.19547934988030383,
            'pred_gru.bias_hh_l0': 0.08970391183427275,
            'pred_gru.weight_ih_l0_reverse': 0.43351945786597973,
            'pred_gru.weight_hh_l0_reverse': 0.1507705457253822,
            'pred_gru.bias_ih_l0_reverse': 0.6189180773704758,
            'pred_gru.bias_hh_l0_reverse': 0.30157390026790326,
            'pred_fc.weight': 0.6646994792337333,
            'pred_fc.bias': 0.8816259401320294,
            'pred_fc_hard.weight': 0.9809605268130673,
            'pred_fc_hard.bias': 1.0481813570780223,
        },
        {
            'gen_embd.weight': 0.4121348233713751,
            'gen_gru.weight_ih_l0': 0.3148026053180326,
            'gen_gru.weight_hh_l0': 0.34362622667773135,
            'gen_gru.bias_ih_l0': 0.8293322983540865,
            'gen_gru.bias_hh_l0': 0.49404249396909367,
            'gen_gru.weight_ih_l0_reverse': 0.5023676836381332,
            'gen_gru.weight_hh_l0_reverse': 0.2878983317466224,
            'gen_gru.bias_ih_l0_reverse': 0.9890786212904316,
            'gen_gru.bias_hh_l0_reverse': 0.5607009999883447,
            'gen_fc.weight': None,
            'gen_fc_token.weight': None,
            'gen_fc_word.weight': 2.215618192992196,
            'gen_fc_word.bias': 1.9623485091340764,
        },
    ],
    # reference parameter: (sum after step 1, norm after 1, sum after 3, norm after 3)
    "parameters": {
        'gen_embd.weight': (-4.161836571775375, 5.855862734882593, -4.161333256313225, 5.855908390442272),
        'pred_embd.weight': (-4.162436567069923, 5.855781148605367, -4.182436812265109, 5.855817002371013),
        'gen_gru.weight_ih_l0': (3.5008023163899855, 4.082784836470308, 3.5005088196970826, 4.082834168954827),
        'gen_gru.weight_hh_l0': (-6.3880194002017605, 4.085250869714083, -6.388405825299334, 4.0851642087102515),
        'gen_gru.bias_ih_l0': (-1.3922137442784832, 2.050780559795875, -1.392233179573613, 2.0506574890986733),
        'gen_gru.bias_hh_l0': (2.4245823751003623, 1.5277210958694563, 2.4245629539882585, 1.527797195148514),
        'gen_gru.weight_ih_l0_reverse': (4.591122365731451, 4.276951616086236, 4.592206206952506, 4.276976195667684),
        'gen_gru.weight_hh_l0_reverse': (-1.805873115164216, 3.6956113974190203, -1.8065012748841618, 3.6954440251926606),
        'gen_gru.bias_ih_l0_reverse': (-2.7175306067033254, 2.15730739765715, -2.7178746307263557, 2.1574032678374686),
        'gen_gru.bias_hh_l0_reverse': (0.3785582153623587, 1.2809917030651912, 0.3782158177913389, 1.2809746181691302),
        'gen_fc_token.weight': (-1.000288372857031, 1.1479055350273972, -1.000288372857031, 1.1479055350273972),
        'gen_fc.weight': (0.0035238757178996938, 2.168493889130492, 0.0035238757178996938, 2.168493889130492),
        'pred_gru.weight_ih_l0': (-1.2590844962874739, 4.817797106588074, -1.2530852400966541, 4.819422788973859),
        'pred_gru.weight_hh_l0': (-5.3472890936285085, 3.5214959727106154, -5.343289287673604, 3.5211195319491706),
        'pred_gru.bias_ih_l0': (-1.0620311330762697, 1.8112581696863304, -1.070031127349551, 1.8108355999082064),
        'pred_gru.bias_hh_l0': (1.5282999415440168, 1.389362966503642, 1.520299948087048, 1.3894906459658818),
        'pred_gru.weight_ih_l0_reverse': (-2.506904325358736, 3.457263295388624, -2.5069043288756188, 3.4575519309749754),
        'pred_gru.weight_hh_l0_reverse': (0.8081796421205475, 2.941296541589782, 0.8061796545254183, 2.941719308247655),
        'pred_gru.bias_ih_l0_reverse': (-0.9313103789719097, 1.364757704944631, -0.9353103678479693, 1.3636266955450573),
        'pred_gru.bias_hh_l0_reverse': (0.13955207565361016, 1.8351659048904974, 0.13555207937386893, 1.833825317968267),
        'pred_fc.weight': (0.48263100177256096, 1.3194534457895775, 0.4826310017725609, 1.3213400917679408),
        'pred_fc.bias': (-0.2009969074832404, 0.583656261691599, -0.2009969074832404, 0.5822847201820991),
        'pred_fc_hard.weight': (-1.67136122714259, 2.503000621997195, -1.67136122714259, 2.502270753049972),
        'pred_fc_hard.bias': (1.4012487530450546, 0.9913294209134822, 1.4012487530450546, 0.9913752011914054),
        'gen_fc_word.weight': (1.9380135707579293, 2.305102005589217, 1.9380135707579296, 2.305023692689121),
        'gen_fc_word.bias': (1.1413785734213364, 0.9251792482534776, 1.1413785734213364, 0.9252474653185218),
    },
}
