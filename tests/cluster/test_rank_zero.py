"""Which process writes the run directory: rank 0 of the whole job, however the job was started."""
import pytest

from pyhighlights.training.run import _global_zero

LAUNCHERS = ("RANK", "SLURM_PROCID", "NODE_RANK", "LOCAL_RANK")


@pytest.mark.parametrize("environment, writes", [
    ({}, True),                                   # one process
    ({"LOCAL_RANK": "1"}, False),                 # a process Lightning started on the first machine
    ({"NODE_RANK": "1"}, False),                  # the main process of the second machine (Lightning's launcher)
    ({"NODE_RANK": "0", "LOCAL_RANK": "0"}, True),
    ({"SLURM_PROCID": "0"}, True), ({"SLURM_PROCID": "5"}, False),  # srun
    ({"RANK": "0", "LOCAL_RANK": "0"}, True), ({"RANK": "3", "LOCAL_RANK": "1"}, False),  # torchrun
])
def test_only_rank_zero_of_the_job_writes(monkeypatch, environment, writes):
    for variable in LAUNCHERS:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    assert _global_zero() is writes
