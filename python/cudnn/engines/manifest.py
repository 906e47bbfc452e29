"""The frontend's manifest of python engine families (``cudnn.engines.manifest``).

Each family of the frontend's table is listed under its name and id block,
with no engine slots: the graph compiler ships none of the frontend's python
engines, so ``offered_ids()`` is empty whatever the opt-in variable says, and
a program that looks its engine up (``next(f for f in MANIFEST if f.name ==
"frost_sdpa_fwd")``) finds the family and learns it is not on offer."""

import os
from dataclasses import dataclass, field
from typing import Dict, Mapping

from . import engine_ids as _ids

# the frontend's switch for engines that are not offered by default
_OPT_IN_VARIABLE = "CUDNN_FRONTEND_ENABLE_FROST_ENGINES"


def opt_in_engines_enabled() -> bool:
    """Whether the opt-in variable is set to a true word (1, true, yes, on);
    read on every call so a test can toggle it."""
    return os.environ.get(_OPT_IN_VARIABLE, "0").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class EngineSlot:
    """An engine's fixed place in its family's id block."""

    slot: int
    opt_in: bool = False


@dataclass(frozen=True)
class EngineFamily:
    """A kind of graph and the python engines that serve it."""

    engine_id: int
    name: str
    slots: Mapping[str, EngineSlot] = field(default_factory=dict)

    @property
    def id_end(self) -> int:
        return self.engine_id + _ids.FAMILY_BLOCK

    def owns(self, engine_id: int) -> bool:
        return self.engine_id <= engine_id < self.id_end

    def offered_ids(self) -> Dict[str, int]:
        """``{engine name: engine id}`` of the engines on offer: those not
        opt-in, and the opt-in ones while the variable is set."""
        enabled = opt_in_engines_enabled()
        return {name: self.engine_id + s.slot for name, s in self.slots.items() if enabled or not s.opt_in}


MANIFEST = (
    EngineFamily(_ids.GDN_ID_BASE, "gdn"),
    EngineFamily(_ids.KDA_ID_BASE, "kda"),
    EngineFamily(_ids.GDN2_ID_BASE, "gdn2"),
    EngineFamily(_ids.GDP_ID_BASE, "gdp"),
    EngineFamily(_ids.FROST_GEMM_ID_BASE, "frost_gemm"),
    EngineFamily(_ids.FROST_SDPA_FWD_ID_BASE, "frost_sdpa_fwd"),
    EngineFamily(_ids.FROST_SDPA_BWD_ID_BASE, "frost_sdpa_bwd"),
)
