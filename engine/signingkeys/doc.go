// Package signingkeys rotates and retires the keys that sign agent, image
// and host tokens, with no HTTP in it: the ring is changed in the
// replicated state first (engine.UpdateKeyRing), then held in memory, and
// each change is logged and recorded as an event. The REST API's
// /v2/signing-keys endpoints decode, call a Service and encode.
package signingkeys
