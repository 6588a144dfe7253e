package api

import (
	"encoding/json"

	"github.com/rackboot/rackboot/boot/kargs"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// kernelArgs checks upstream's kernel_arguments with boot/kargs (each
// operation append, replace or delete, each value one argument safe in
// an iPXE script) and converts them.
func kernelArgs(in models.KernelArguments) ([]engine.KernelArgument, error) {
	out := make([]engine.KernelArgument, len(in)) // not nil: an empty list clears (null would leave the list as it is)
	for i, a := range in {
		out[i] = engine.KernelArgument{Operation: a.Operation, Value: a.Value}
	}
	if err := kargs.Check(out); err != nil {
		return nil, badRequest("%v", err)
	}
	return out, nil
}

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
