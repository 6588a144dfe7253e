package api

import (
	"encoding/json"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// kernelArgsOut is the list as upstream's InfraEnv shows it: a JSON string.
func kernelArgsOut(in []engine.KernelArgument) string {
	if len(in) == 0 {
		return ""
	}
	list := make(models.KernelArguments, len(in))
	for i, a := range in {
		list[i] = models.KernelArgument{Operation: a.Operation, Value: a.Value}
	}
	b, _ := json.Marshal(list) // strings only: cannot fail
	return string(b)
}
