package api

import (
	"encoding/json"
	"regexp"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/ipxe"
)

// maxKernelArgs bounds an infra-env's kernel_arguments list.
const maxKernelArgs = 64

// kernelArgValue is upstream's pattern of one kernel argument, less the
// quoted form (a quote cannot go into an iPXE script).
var kernelArgValue = regexp.MustCompile(`^[^ \t\n\r"]+$`)

// maxKernelArgLen bounds one kernel argument.
const maxKernelArgLen = 1024

// kernelArgs checks upstream's kernel_arguments and converts them: each
// operation append, replace or delete, each value one argument safe in
// an iPXE script.
func kernelArgs(in models.KernelArguments) ([]engine.KernelArgument, error) {
	if len(in) > maxKernelArgs {
		return nil, badRequest("kernel_arguments: %d entries, at most %d", len(in), maxKernelArgs)
	}
	out := []engine.KernelArgument{} // not nil: an empty list clears (null would leave the list as it is)
	for i, a := range in {
		switch a.Operation {
		case models.KernelArgAppend, models.KernelArgReplace, models.KernelArgDelete:
		default:
			return nil, badRequest("kernel_arguments[%d].operation %q must be append, replace or delete", i, a.Operation)
		}
		if len(a.Value) > maxKernelArgLen || !kernelArgValue.MatchString(a.Value) || ipxe.CheckKernelArgs(a.Value) != nil {
			return nil, badRequest("kernel_arguments[%d].value %q must be one kernel argument of letters, digits and . _ , : / = + @ %% - ~", i, a.Value)
		}
		out = append(out, engine.KernelArgument{Operation: a.Operation, Value: a.Value})
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
