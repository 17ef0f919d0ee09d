"""SPECTRA (Guerreiro and Martins, 2021): its SparseMAP selector and the model."""
from pyhighlights.components import spectra
from pyhighlights.models.selection import spectra as spectra_model
from pyhighlights.registry import register

register("selector", "spectra", spectra.SpectraSelectorConfig, spectra.SpectraSelector)
register("model", "spectra", spectra_model.SpectraConfig, spectra_model.Spectra)
