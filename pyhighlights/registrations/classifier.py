"""The full-input classifier (``model=classifier``): accuracy baseline and the model post-hoc methods explain."""
from pyhighlights.models import classifier
from pyhighlights.registry import register

register("model", "classifier", classifier.ClassifierConfig, classifier.Classifier)
