package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxResultFileBytes bounds a saved result (Phase 1/2/3 JSON) read whole: a
// file larger than this is not one of ours, and reading it would only
// exhaust memory.
const MaxResultFileBytes = 2 << 30

// ReadResultFile reads a saved result file (what names it in messages, e.g.
// "Phase 1 JSON") whole. Everything that cannot be one is an InputError
// with its own problem, found before reading: a missing path, a folder, a
// named pipe or device (which would block or never end), an empty file, a
// file over MaxResultFileBytes.
func ReadResultFile(path, what string) ([]byte, error) {
	return ReadInputFile(path, what, MaxResultFileBytes)
}

// JSONProblem words an encoding/json decoding error for people, without Go
// type names: a truncated file, the byte offset of a syntax error, or the
// field holding a value of the wrong kind.
func JSONProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || err != nil && err.Error() == "unexpected end of JSON input":
		return "truncated JSON: the file ends inside a value"
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the top-level value"
		} else {
			field = "field " + field
		}
		return fmt.Sprintf("%s holds a JSON %s, expected %s", field, te.Value, jsonKindOf(te.Type.Kind().String()))
	case err == nil:
		return ""
	}
	return oneLine(err.Error())
}

// jsonKindOf names a Go kind as the JSON kind that would fill it.
func jsonKindOf(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "a list"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "another kind of value"
}
