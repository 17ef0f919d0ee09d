"""The ``recipe`` config group: which preset of settings a run starts from (see the README's "Recipes").

``recipe=reference`` is the registered defaults. ``recipe=recommended`` adds the model's own file,
``recipe_model/recommended_<model>.yaml``, which records its model in ``recipe.model``; a model without such
a file would silently train the reference settings under the recommended name, so it is refused.
"""
from __future__ import annotations

from pyhighlights.config.errors import ConfigError
from pyhighlights.config.files import CONFIG_DIR


def models_with_recipe(recipe: str) -> list[str]:
    """The models that have a ``recipe_model/<recipe>_<model>.yaml``."""
    prefix = f"{recipe}_"
    return sorted(p.stem[len(prefix):] for p in (CONFIG_DIR / "recipe_model").glob(f"{prefix}*.yaml"))


def check_recipe(container: dict) -> None:
    """Refuse a recipe other than the reference that has no entry for the composed model."""
    recipe = container.get("recipe")
    if not isinstance(recipe, dict) or recipe.get("name", "reference") == "reference":
        return  # the reference, or a run recorded before recipes existed
    model = (container.get("model") or {}).get("name")
    if recipe.get("model") != model:
        have = ", ".join(models_with_recipe(recipe["name"])) or "none"
        raise ConfigError(f"recipe={recipe['name']}: no {recipe['name']} recipe for model={model} "
                          f"(models with one: {have}); use recipe=reference, its registered defaults")
