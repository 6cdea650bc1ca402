"""The per-pod-set verdicts moved to the core (kubectl_pd/kueue/verdicts.py), which create and why-pending
share; this name stays for callers that import it from here (`Demand` is the core's `RoleDemand`)."""

from kubectl_pd.kueue.verdicts import *  # noqa: F403
from kubectl_pd.kueue.verdicts import RoleDemand as Demand  # noqa: F401
