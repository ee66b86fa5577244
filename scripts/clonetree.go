package scripts

import (
	"reflect"

	"github.com/yuin/gopher-lua/ast"
)

// cloneTree copies a syntax tree so that passes may change the copy and the
// original alike: every node, statement list and name list is new, so the
// two share only strings. It costs a fraction of parsing again (see
// BenchmarkCloneTree), which is what it replaces.
func cloneTree(chunk []ast.Stmt) []ast.Stmt {
	return cloneValue(reflect.ValueOf(chunk)).Interface().([]ast.Stmt)
}

func cloneValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return v
		}
		// The whole node first, as its position is unexported; then what
		// its exported fields lead to.
		c := reflect.New(v.Type().Elem())
		e := c.Elem()
		e.Set(v.Elem())
		t := e.Type()
		for i := 0; i < e.NumField(); i++ {
			if f := e.Field(i); t.Field(i).IsExported() && deep(f.Kind()) {
				f.Set(cloneValue(f))
			}
		}
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		return cloneValue(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(cloneValue(v.Index(i)))
		}
		return c
	case reflect.Struct:
		// Embedded by value (ast.Node): copied with its holder.
		return v
	}
	return v
}

// deep reports whether a field of kind k may lead to other nodes.
func deep(k reflect.Kind) bool {
	return k == reflect.Pointer || k == reflect.Interface || k == reflect.Slice
}
