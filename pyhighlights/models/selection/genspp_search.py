"""GenSPP's search loop: candidates scored in worker processes, the population checkpointed every generation.

Determinism. Every candidate has its own seed, drawn from (run seed, generation, index) by numpy's SeedSequence;
its fresh predictor's weights, the order it visits the training batches and its dropout draw from that seed alone,
in one thread, so a candidate scores the same in any worker and in this process. The operators draw from one
numpy generator whose state is saved with each generation. A search stopped anywhere and resumed from its latest
``generation-NNNN.pt`` therefore ends with the same population and scores as one that ran through.

Parallelism: a ``torch.multiprocessing`` pool (forked on CPU, spawned for CUDA) of ``model.search_workers``
processes, each given the model and the batches once and a device of its own (one visible GPU per worker, round robin, when scoring on CUDA). A
process pool, not an evolutionary library: the operators are a few lines (pyhighlights/components/genetic.py),
while what costs time is training a predictor per candidate, which a library's evaluator would run through the
same kind of pool; evotorch and deap would add a dependency without removing any of this code.
"""
from __future__ import annotations

import copy
import logging
import re
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from pyhighlights.atomic import replace_atomically
from pyhighlights.components import genetic
from pyhighlights.faults import fault_point

log = logging.getLogger("pyhighlights")

FILE = re.compile(r"^generation-(\d{4,})\.pt$")


def candidate_seed(seed: int, generation: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, generation, index]).generate_state(1)[0])


def score_candidate(model, genes: np.ndarray, seed: int, train_batches, dev_batches, device) -> dict:
    """Train a fresh predictor on the selector ``genes``' rationales; its validation ce, the selection rate and
    the fitness, with the predictor's trained weights (on CPU)."""
    settings = model.search_settings
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a reduction's order, hence every bit of the result, must not depend on the worker
    try:
        model.to(device)
        model.set_chromosome(genes)
        model.fresh_predictor(seed)
        with torch.random.fork_rng(devices=[device] if torch.device(device).type == "cuda" else []):
            torch.manual_seed(seed)
            order = torch.Generator().manual_seed(seed)
            model.eval()
            with torch.no_grad():
                train = [(b.to(device), model.select(b.to(device)).mask) for b in train_batches]
            optimizer = model.make_optimizer(model.predictor_path(), lr=model.lr)
            for _ in range(settings["predictor_epochs"]):
                for module in model.predictor_path():
                    module.train()
                for i in torch.randperm(len(train), generator=order).tolist():
                    batch, mask = train[i]
                    optimizer.zero_grad(set_to_none=True)
                    F.cross_entropy(model.predict(batch, mask), batch.labels).backward()
                    optimizer.step()
            model.eval()
            ce, rate, documents = 0.0, 0.0, 0
            with torch.no_grad():
                for batch in dev_batches:
                    batch = batch.to(device)
                    mask = model.select(batch).mask
                    ce += float(F.cross_entropy(model.predict(batch, mask), batch.labels, reduction="sum"))
                    words = batch.word_mask.to(mask.dtype)
                    rate += float(((mask * words).sum(1) / words.sum(1).clamp(min=1)).sum())
                    documents += batch.size
        if documents == 0:
            raise ValueError("GenSPP scores each candidate on the corpus's validation split, which is empty here: "
                             "choose a corpus with validation documents")
        ce, rate = ce / documents, rate / documents
        return {"ce": ce, "sparsity": rate, "fitness": genetic.fitness(ce, rate, settings["ce_limit"]),
                "predictor": model.predictor_state()}
    finally:
        torch.set_num_threads(threads)


# --- workers ------------------------------------------------------------------------------
_WORKER: dict = {}


def _start_worker(model, train_batches, dev_batches, devices) -> None:
    # torch.multiprocessing hands every worker the same shared-memory storage of the model's tensors: each
    # worker needs its own copy, or one worker's candidate overwrites the weights another is training.
    _WORKER.update(model=copy.deepcopy(model), train=train_batches, dev=dev_batches, device=devices.get())


def _score_in_worker(task):
    genes, seed = task
    return score_candidate(_WORKER["model"], genes, seed, _WORKER["train"], _WORKER["dev"], _WORKER["device"])


class Scorer:
    """Scores lists of (genes, seed) in this process or in a pool of worker processes."""

    def __init__(self, model, train_batches, dev_batches, workers: int, accelerator: str):
        cuda = accelerator == "cuda" or (accelerator == "auto" and torch.cuda.is_available())
        if cuda and not torch.cuda.is_available():
            raise RuntimeError("model.search_accelerator=cuda: no GPU is visible")
        self.model, self.train, self.dev = model, train_batches, dev_batches
        self.device = "cuda:0" if cuda else "cpu"
        self.pool = None
        if workers > 1 or (workers == 1 and cuda):
            import torch.multiprocessing as mp

            # fork on CPU (the workers inherit the imports: seconds, where spawn re-imports torch and Lightning
            # in each); CUDA cannot be forked into.
            context = mp.get_context("spawn" if cuda or "fork" not in mp.get_all_start_methods() else "fork")
            devices = context.Queue()
            count = torch.cuda.device_count() if cuda else 0
            for i in range(workers):
                devices.put(f"cuda:{i % count}" if cuda else "cpu")
            template = model.cpu()
            self.pool = context.Pool(workers, initializer=_start_worker,
                                     initargs=(template, train_batches, dev_batches, devices))

    def __call__(self, tasks: list[tuple[np.ndarray, int]]) -> list[dict]:
        if self.pool is not None:
            return self.pool.map(_score_in_worker, tasks, chunksize=1)
        return [score_candidate(self.model, genes, seed, self.train, self.dev, self.device) for genes, seed in tasks]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None


# --- checkpoints --------------------------------------------------------------------------
def latest_generation(directory: Path) -> Path | None:
    found = sorted((int(m.group(1)), p) for p in directory.glob("generation-*.pt") if (m := FILE.match(p.name)))
    return found[-1][1] if found else None


def _fingerprint(model, seed: int, genes: int) -> dict:
    return {"seed": seed, "genes": genes, **{k: v for k, v in model.search_settings.items() if k != "generations"}}


def _save(directory: Path, state: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"generation-{state['generation']:04d}.pt"
    replace_atomically(path, lambda handle: torch.save(state, handle))


def _load(path: Path, expected: dict) -> dict:
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a file we did not write whole (we write atomically) or not ours
        raise ValueError(f"{path}: not a readable GenSPP search checkpoint ({error})") from error
    if state.get("fingerprint") != expected:
        raise ValueError(f"{path}: written by a search with other settings ({state.get('fingerprint')}); this "
                         f"search has {expected}. Use a new run directory")
    return state


def best_index(fitness) -> int:
    """The first candidate of highest fitness (the reference's get_best_individual)."""
    return int(np.argmax(np.asarray(fitness)))


def _finished(state: dict, settings: dict, generations: int) -> bool:
    return state["generation"] >= generations or \
        1.0 / float(state["fitness"].max()) <= settings["stop_loss"]


# --- the loop -----------------------------------------------------------------------------
def materialise(datamodule) -> tuple[list, list]:
    """One epoch's training batches (formed once) and the validation batches."""
    datamodule.setup("fit")
    return list(datamodule.train_dataloader()), list(datamodule.val_dataloader())


def search(model, datamodule, directory: Path | str, seed: int, write: bool = True) -> dict:
    """Run the search into ``directory`` (resuming from its latest generation file); return the final state and
    leave its best candidate (selector and predictor) in ``model``."""
    directory = Path(directory)
    settings = model.search_settings
    size, generations = settings["population_size"], settings["generations"]
    train_batches, dev_batches = materialise(datamodule)
    genes = len(model.chromosome())
    expected = _fingerprint(model, seed, genes)
    latest = latest_generation(directory) if directory.is_dir() else None
    state = _load(latest, expected) if latest is not None else None
    std = np.full(genes, settings["mutation_std"])
    std[model.threshold_genes()] = settings["threshold_mutation_std"]
    crossover, survival = genetic.CROSSOVERS[settings["crossover"]], genetic.SURVIVALS[settings["survival"]]
    scorer = None
    try:
        if state is None or not _finished(state, settings, generations):
            scorer = Scorer(model, train_batches, dev_batches, model.search_workers, model.search_accelerator)
        if state is None:
            seeds = [candidate_seed(seed, 0, i) for i in range(size)]
            founders = [model.founder_chromosome(s) for s in seeds]
            scored = scorer(list(zip(founders, seeds)))
            state = _generation_state(0, founders, scored, [r["predictor"] for r in scored], seeds,
                                      np.random.default_rng(seed), expected, [])
            _record(directory, state, write)
        else:
            log.info("GenSPP search: resuming after generation %d (%s)", state["generation"], latest)
        while not _finished(state, settings, generations):
            state = _next_generation(state, scorer, seed, std, crossover, survival, settings)
            _record(directory, state, write)
    finally:
        if scorer is not None:
            scorer.close()
    best = best_index(state["fitness"])
    model.cpu()
    model.set_chromosome(state["chromosomes"][best].numpy())
    model.load_predictor_state(state["best_predictor"])
    return state


def _next_generation(state: dict, scorer, seed: int, std, crossover, survival, settings: dict) -> dict:
    """Selection, crossover, mutation, scoring of the children, survival: the population after one generation."""
    rng = np.random.default_rng()
    rng.bit_generator.state = state["rng"]
    generation = state["generation"] + 1
    population = list(state["chromosomes"].numpy())
    fitness = state["fitness"].tolist()
    children = []
    for first, second in genetic.roulette_couples(fitness, settings["selection_rate"], rng):
        children.extend(crossover(population[first], population[second], rng))
    children = [genetic.gaussian_mutation(c, std, settings["mutation_probability"], rng) for c in children]
    seeds = [candidate_seed(seed, generation, i) for i in range(len(children))]
    scored = scorer(list(zip(children, seeds))) if children else []
    # Only the best's predictor is kept from one generation to the next: survivors are never scored again, so
    # the best after survival is the previous best or a child (ties keep the earlier, as the stable sort does).
    predictors = [None] * len(population) + [r["predictor"] for r in scored]
    predictors[best_index(fitness)] = state["best_predictor"]
    everyone = [{"ce": c, "sparsity": s, "fitness": f} for c, s, f in
                zip(state["ce"].tolist(), state["sparsity"].tolist(), fitness)] + scored
    keep = survival([r["fitness"] for r in everyone], settings["population_size"], rng)
    all_seeds = state["seeds"].tolist() + seeds
    return _generation_state(generation, [(population + children)[i] for i in keep], [everyone[i] for i in keep],
                             [predictors[i] for i in keep], [all_seeds[i] for i in keep], rng,
                             state["fingerprint"], state["history"])


def _generation_state(generation, chromosomes, scored, predictors, seeds, rng, fingerprint, history) -> dict:
    """The population after ``generation`` as a checkpoint: tensors, plain numbers and the rng state only."""
    fitness = [float(r["fitness"]) for r in scored]
    best = best_index(fitness)
    if predictors[best] is None:
        raise AssertionError("GenSPP search: the best candidate's predictor was not kept")
    return {
        "generation": generation,
        "chromosomes": torch.as_tensor(np.stack(chromosomes)),
        "ce": torch.tensor([float(r["ce"]) for r in scored], dtype=torch.float64),
        "sparsity": torch.tensor([float(r["sparsity"]) for r in scored], dtype=torch.float64),
        "fitness": torch.tensor(fitness, dtype=torch.float64),
        "seeds": torch.tensor([int(s) for s in seeds], dtype=torch.int64),
        "best_predictor": predictors[best],
        "rng": rng.bit_generator.state,
        "fingerprint": fingerprint,
        "history": [*history, {"generation": generation, "best_fitness": fitness[best],
                               "best_loss": 1.0 / fitness[best], "best_ce": float(scored[best]["ce"]),
                               "best_sparsity": float(scored[best]["sparsity"]),
                               "mean_fitness": float(np.mean(fitness))}],
    }


def _record(directory: Path, state: dict, write: bool) -> None:
    last = state["history"][-1]
    log.info("GenSPP generation %d: best loss %.4f (ce %.4f, selection %.3f), mean fitness %.3f",
             state["generation"], last["best_loss"], last["best_ce"], last["best_sparsity"], last["mean_fitness"])
    if write:
        _save(directory, state)
    fault_point("search_generation")
