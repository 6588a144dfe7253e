// Package kargs applies an infra-env's discovery kernel arguments, as
// assisted-service's kernel_arguments describe them (a list of
// {operation: append|replace|delete, value}), to a kernel command line:
// the iPXE script's kernel line (engine/bootsel) and the discovery ISO's
// kargs area (boot/iso) both go through Apply, and the REST API
// (engine/api) and the domain's commands check a list with Check; it is
// the one place that knows the operations (engine.KernelArgument is an
// alias of Arg). Check refuses any value that is not one plain
// argument: whitespace, quotes, backslashes, control characters and the
// iPXE and shell specials (${...}, ||, ;, #, <, >) could otherwise end
// the kernel line, split one argument into several or expand iPXE
// settings.
package kargs
