// Package bmc is what rackboot knows about baseboard management controllers
// independent of any one protocol: the metal3 address schemes an operator
// writes in a BareMetalHost (redfish://, idrac-virtualmedia://, …), the
// credentials and connection options of one BMC, the small Driver interface
// the engine's controller drives machines through (power, one-time boot
// device, virtual media, inventory), and the sentinel errors that tell the
// controller whether to retry (ErrUnreachable, ErrBMC), to stop and show the
// operator (ErrBadCredentials), or to give up on an operation the BMC lacks
// (ErrUnsupported).
//
// The Redfish implementation lives in bmc/redfish. This package imports only
// the standard library.
package bmc
