"""NIR: A2R with noise injected into the rationale its predictor reads (Storek, Subbiah and McKeown, ACL
2023, "Unsupervised Selective Rationalization with Noise Injection"). Reference code:
github.com/adamstorek/noise_injection, commit 334e8887 (``model/models.py``: BERT-A2R's ``BlackBoxPredictor``,
``RationalePredictor``, ``RandomNoisyRationaleExtractor``, ``TopkSelector``; ``model/run_words.py``: the
training loop and its argparse defaults; ``model/movies.py``; ``data_preprocessing/*/generate_word_statistics.py``).

The reference is BERT-A2R: a generator whose soft attention feeds a soft predictor (the "black box") and
whose top-k words are the rationale a second predictor reads, plus noise injection: while training, each
rationale word is replaced, with a TF-IDF-based probability, by a word drawn from the training vocabulary
(:mod:`pyhighlights.components.noise_injection`, the shared part in the ``noise`` attribute, fitted on the
training split when training starts). Validation and test read the rationale without noise
(``validation_rationale_extractor``, ``test_rationale_extractor``: the plain ``RationaleExtractor``).

Here it is our A2R (:mod:`pyhighlights.models.baselines.a2r`: selector slot, soft attention predictor, hard predictor,
alternating steps) with the noise before the hard predictor, in both steps (the reference draws one noisy
rationale per batch and both losses read it). Defaults from ``run_words.py``: ``--noise_p 0.1``;
``--bb_lr`` and ``--rp_lr`` 2e-5; ``--proximity 0.1``, the weight of ``js_div`` in both losses (the
``mixture_kl`` term, :class:`~pyhighlights.components.agreement.MixtureKLTerm`, summed over the batch as
``reduction='sum'``); ``--sparsity 0.2`` (the sparsity target); the generator's loss is CE(soft) +
proximity·JS with the hard prediction detached, so it never takes the hard CE (``hard_from: null``) and
takes the divergence; the rationale predictor's is CE(hard) + proximity·JS. ``--batch_size 16``,
``--num_epochs 5`` and ``--patience 2`` are the experiment configs' trainer settings.

Departures (the structure is A2R's; each is A2R's named option or a setting of the config):
the reference selects the top ``round(0.2·n)`` tokens of the attention and its generator learns only
through the soft path; here the selector slot samples a keep/drop per word, held near 0.2 by the
``sparsity`` term (weight 10, A2R's); the reference updates both parts on every batch, here they alternate
(A2R); the reference's CE reads the softmax outputs as logits (``F.cross_entropy(att_pred, labels)`` with
``att_pred`` a probability), here CE reads the logits; the reference re-tokenises the rationale as its own
sequence, here the predictor reads the masked document (A2R). ``noise_p=0`` is A2R with these defaults.
"""
from __future__ import annotations

from dataclasses import replace

import torch
from cinnamon.registry import RegistrationKey

from pyhighlights.components.noise_injection import NoiseInjection
from pyhighlights.models.baselines.a2r import A2R, A2RConfig
from pyhighlights.registry import Param, registration_key as key


def vocabulary_size(encoder) -> int:
    """Rows of the embedding table an encoder reads its token ids through."""
    layer = getattr(encoder, "embedding", None)
    for owner in (encoder, getattr(encoder, "model", None)):
        if layer is None and hasattr(owner, "get_input_embeddings"):
            layer = owner.get_input_embeddings()
    if layer is None:
        raise TypeError(f"nir: {type(encoder).__name__} has no embedding table to draw replacement tokens from")
    return int(layer.num_embeddings)


class NIRConfig(A2RConfig):
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "soft_task": key("loss", "cross_entropy"),
         "divergence": key("loss", "mixture_kl"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity")})
    selector_terms: list[str] = Param(["soft_task", "divergence", "sparsity"],
                                      description="loss terms of the generator step (reference: CE of the soft "
                                                  "predictor + proximity·JS; the sparsity term is ours)")
    noise_p: float = Param(0.1, ge=0.0, le=1.0, description="noise magnitude: a document's mean replacement "
                                                            "probability before clipping (reference --noise_p)")
    defaults = {
        "lr": 2e-5, "predictor_lr": 2e-5, "hard_from": None,
        "losses": {"divergence": {"weight": 0.1}, "sparsity": {"weight": 10.0, "target": 0.2}},
    }


class NIR(A2R):
    def __init__(self, *, noise_p, **a2r):
        super().__init__(**a2r)
        self.noise_p = noise_p
        self.noise = NoiseInjection(vocabulary_size(self.predictor_encoder), noise_p)

    def on_train_start(self):
        super().on_train_start()
        if not bool(self.noise.fitted):  # a resumed run has them from its checkpoint
            self.noise.fit(self.training_documents())

    def training_documents(self) -> list[list[int]]:
        """Token ids of every training document: the data module's encoded split, else the documents of the
        training loader's batches, gathered from every process (each reads its own share)."""
        data = getattr(self.trainer, "datamodule", None)
        if data is not None and hasattr(data, "datasets"):
            data.setup()
            return [example.input_ids.tolist() for example in data.datasets["train"].examples]
        documents = [row[mask > 0].tolist() for batch in self.trainer.train_dataloader
                     for row, mask in zip(batch.input_ids, batch.attention_mask)]
        if self.trainer.world_size > 1:
            import torch.distributed as dist

            shares = [None] * self.trainer.world_size
            dist.all_gather_object(shares, documents)
            documents = [document for share in shares for document in share]
        return documents

    def noise_seeds(self, batch) -> list[int]:
        """One seed per document from the run's seed, the batches trained so far and the document's index."""
        base = torch.initial_seed() * 1_000_003 + int(self.batches_seen)
        return [(base * 1_000_003 + sample) % (2 ** 63) for sample in batch.sample_ids.tolist()]

    def read(self, batch, selection):
        if self.training and self.noise_p > 0:
            noisy = self.noise(batch.input_ids, batch.attention_mask, batch.word_ids, selection.mask,
                               self.noise_seeds(batch))
            logits = self.predict(replace(batch, input_ids=noisy), selection.mask)
        else:
            logits = self.predict(batch, selection.mask)
        soft_logits = self.soft_predict(batch, self.attention(batch, selection))
        return self.outputs(batch, selection, logits, soft_logits=soft_logits)
