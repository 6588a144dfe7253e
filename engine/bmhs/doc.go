// Package bmhs is the BareMetalHost part of the domain, with no HTTP in
// it: creating, changing and deleting BareMetalHosts as the REST API's
// /baremetal-hosts do, with their annotations checked (bmhctl), BMC
// credentials sealed (engine.Sealer) into their credentials secret before
// the BMH names it, preprovisioning network data checked as NMState YAML,
// and an unused credentials secret deleted with its BMH. What a BMH does
// then is engine/bmhctl's controller.
package bmhs
