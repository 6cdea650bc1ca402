"""GPUStack ModelDeployment knowledge: role rules, profiles of the API, names and credits."""
