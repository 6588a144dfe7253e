// Package redfish implements bmc.Driver over DMTF Redfish with
// github.com/stmcginnis/gofish: power, one-time boot override, virtual media
// on the CD slot and inventory, for Dell iDRAC, HPE iLO, Supermicro, Lenovo
// XCC and generic Redfish services.
//
// Where a vendor needs its own method, a small strategy (vendor.go) chosen
// from the address scheme and the system's Manufacturer supplies it: iDRAC
// boots the virtual CD once through ImportSystemConfiguration and its slots
// are never PATCHed, iLO inserts with Oem.Hpe.BootOnNextServerReset,
// Supermicro's CD1 slot is found where the collection lists none. An
// accepted InsertMedia is confirmed by polling the slot until it shows the
// image (Options.MediaTimeout), an eject until the slot is empty. In UEFI
// mode a target listed with a Uefi prefix (UefiCd, UefiPxe) is used; a
// graceful power-off falls back to PushPowerButton where GracefulShutdown
// is not allowed.
//
// Other differences are handled by trying the alternative request shapes
// real BMCs are known to need, in a fixed order: an InsertMedia POST that is refused with 400 is retried without
// Inserted/WriteProtected (then set with PATCH, as Supermicro and Lenovo
// need), then with TransferProtocolType, then with TransferMethod Stream;
// EjectMedia always carries an empty JSON object (iLO refuses an empty body);
// the CD slot is looked for under the System first (newer iDRAC) and then
// under its Manager (older iDRAC, iLO, Supermicro, Lenovo); a boot override
// refused with the UEFI mode is retried without the mode (Supermicro).
//
// Every request has a timeout; transient failures (dial errors, HTTP 503, and
// for idempotent requests timeouts and other 5xx) are retried with doubling
// backoff. 401/403 are never retried. Errors wrap bmc.ErrBadCredentials,
// bmc.ErrUnreachable, bmc.ErrUnsupported or bmc.ErrBMC, and never carry the
// password.
package redfish
