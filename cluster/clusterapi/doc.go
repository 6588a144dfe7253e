// Package clusterapi is the HTTP face of the rack cluster's membership,
// mounted by rackbootd on its API listener behind the admin token:
//
//	GET    /api/rackboot/v1/cluster               members, leader, term, indexes, lag
//	POST   /api/rackboot/v1/cluster/members       {"id": "rb4", "address": "10.99.0.5:8300"}
//	DELETE /api/rackboot/v1/cluster/members/{id}
//
// The membership changes answer with the status after the change. Errors
// are JSON documents {"code", "reason"} as the assisted-installer API
// writes them: 400 for a bad request, 404 for an unknown member, 409 for a
// refused change, 503 while no leader can be reached.
package clusterapi
