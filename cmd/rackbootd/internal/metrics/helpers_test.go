package metrics

import "runtime"

func runtimeVersion() string { return runtime.Version() }
