// Package jsonfields finds the keys of a JSON document that a Go type has
// no field for (by the json tags, through pointers, slices and embedded
// structs), so a caller can report fields it would otherwise drop
// silently: the API answers them as Warning headers, rackbootctl prints
// them. It imports only the standard library.
package jsonfields
