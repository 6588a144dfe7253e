package infraenvs

import (
	"github.com/rackboot/rackboot/boot/kargs"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// KernelArgs checks upstream's kernel_arguments with boot/kargs (each
// operation append, replace or delete, each value one argument safe in
// an iPXE script) and converts them.
func KernelArgs(in models.KernelArguments) ([]engine.KernelArgument, error) {
	out := make([]engine.KernelArgument, len(in)) // not nil: an empty list clears (null would leave the list as it is)
	for i, a := range in {
		out[i] = engine.KernelArgument{Operation: a.Operation, Value: a.Value}
	}
	if err := kargs.Check(out); err != nil {
		return nil, hosts.Invalid("%v", err)
	}
	return out, nil
}
