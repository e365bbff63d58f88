"""The strict base model every spec model derives from."""

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Unknown keys are errors: a typo in a task file names its field."""

    model_config = ConfigDict(extra="forbid", frozen=True)
