"""Parts of Inter-RAT (Yue et al., EMNLP 2023): the confounder dictionary of its causal intervention and the
selection terms averaged per document, as its reference computes them."""
from pyhighlights.components import confounders, document_terms
from pyhighlights.registry import register

register("confounder", "class_embeddings", confounders.ClassEmbeddingsConfig, confounders.ClassEmbeddings)
register("loss", "document_sparsity", document_terms.DocumentSparsityConfig, document_terms.DocumentSparsityTerm)
register("loss", "document_continuity", document_terms.DocumentTermConfig, document_terms.DocumentContinuityTerm)
