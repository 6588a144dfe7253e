package models

// BasePath is where the assisted-service REST API v2 is mounted, upstream's
// as rackboot's: the API serves under it, and the agent, rackbootctl, the
// console and the URLs the engine hands out name it.
const BasePath = "/api/assisted-install/v2"
