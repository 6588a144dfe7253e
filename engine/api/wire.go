package api

// Kinds and hrefs as upstream. The API's documents themselves are
// engine/models' (one definition for the API, rackbootctl and the agent).
const (
	kindCluster  = "Cluster"
	kindInfraEnv = "InfraEnv"
)
