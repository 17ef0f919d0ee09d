"""Running re-scoring and explanation in Lightning's test and predict loops.

Lightning places the modules and the batches on the device and switches the
models to eval mode; the passes here only score. ``device`` is the scripts'
``cpu | cuda | cuda:N``.
"""
from __future__ import annotations

import lightning.pytorch as pl


def device_trainer(device: str = "cpu", *, inference_mode: bool = True) -> pl.Trainer:
    """A one-device Trainer that writes nothing (no logger, no checkpoints); a bar on a terminal."""
    from pyhighlights.training.progress import DocumentsProgressBar, interactive

    device = str(device)
    if device == "cpu":
        accelerator, devices = "cpu", 1
    elif device == "cuda":
        accelerator, devices = "gpu", 1
    elif device.startswith("cuda:") and device[5:].isdigit():
        accelerator, devices = "gpu", [int(device[5:])]
    else:
        raise ValueError(f"device={device}: expected cpu, cuda or cuda:N")
    show = interactive()
    return pl.Trainer(accelerator=accelerator, devices=devices, logger=False, enable_checkpointing=False,
                      enable_model_summary=False, enable_progress_bar=show,
                      callbacks=[DocumentsProgressBar()] if show else [], inference_mode=inference_mode)
