package api

import "github.com/rackboot/rackboot/engine/models"

// Kinds and hrefs as upstream.
const (
	kindCluster  = "Cluster"
	kindInfraEnv = "InfraEnv"
)

// The API's documents are engine/models' (one definition for the API,
// rackbootctl and the agent). These names stay for code outside this
// package that still spells them api.X (bench/agents, testbed/e2e); new
// code uses models.X.
type (
	Cluster              = models.Cluster
	Event                = models.Event
	Host                 = models.APIHost
	HostUpdateParams     = models.HostUpdateParams
	InfraEnv             = models.InfraEnv
	InfraEnvCreateParams = models.InfraEnvCreateParams
)
