package scripts

import (
	"fmt"
	"math"
	"strings"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// strFormat is Lua 5.1's string.format over C printf semantics: %d
// truncates its number, %g defaults to precision 6, %s takes numbers as
// "%.14g" and counts bytes, inf and nan print as glibc prints them.
func strFormat(L *lua.LState) int {
	fs := L.CheckString(1)
	var b strings.Builder
	arg := 1
	for i := 0; i < len(fs); i++ {
		c := fs[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i < len(fs) && fs[i] == '%' {
			b.WriteByte('%')
			continue
		}
		var sp formatSpec
		i = sp.scan(L, fs, i)
		arg++
		if arg > L.GetTop() {
			L.RaiseError("bad argument #%d to 'format' (no value)", arg)
		}
		sp.write(L, &b, arg)
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// formatSpec is one conversion of a format string: %[flags][width][.prec]conv.
type formatSpec struct {
	flags, width, prec string
	hasPrec            bool
	conv               byte
}

// scan reads the conversion that starts at fs[i] (past its '%'), raising
// Lua's errors for what C's printf would not take, and returns the index of
// its conversion letter.
func (sp *formatSpec) scan(L *lua.LState, fs string, i int) int {
	start := i
	for i < len(fs) && strings.IndexByte("-+ #0", fs[i]) >= 0 {
		i++
	}
	if i-start > 5 {
		L.RaiseError("invalid format (repeated flags)")
	}
	sp.flags = fs[start:i]
	w := i
	for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
		i++
	}
	sp.width = fs[w:i]
	if i < len(fs) && fs[i] == '.' {
		sp.hasPrec = true
		i++
		p := i
		for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
			i++
		}
		sp.prec = fs[p:i]
	}
	if i < len(fs) && isDigit(fs[i]) {
		L.RaiseError("invalid format (width or precision too long)")
	}
	if i >= len(fs) {
		L.RaiseError("%s", "invalid option '%' to 'format'")
	}
	sp.conv = fs[i]
	return i
}

// printf is the spec as Go's fmt reads it, without its verb.
func (sp *formatSpec) printf() string {
	spec := "%" + sp.flags + sp.width
	if sp.hasPrec {
		spec += "." + sp.prec
	}
	return spec
}

// write formats argument arg by the spec onto b.
func (sp *formatSpec) write(L *lua.LState, b *strings.Builder, arg int) {
	switch sp.conv {
	case 'c':
		// C's %c of 0 ends the buffer Lua copies from: nothing is added.
		if c := byte(int64(formatNumberArg(L, arg))); c != 0 {
			b.WriteString(padString(string([]byte{c}), sp.flags, sp.width, ""))
		}
	case 'd', 'i':
		b.WriteString(fmt.Sprintf(sp.printf()+"d", luaToInt64(formatNumberArg(L, arg))))
	case 'o', 'u', 'x', 'X':
		v := uint64(luaToInt64(formatNumberArg(L, arg)))
		verb := string(sp.conv)
		if sp.conv == 'u' {
			verb = "d"
		}
		b.WriteString(fmt.Sprintf(sp.printf()+verb, v))
	case 'e', 'E', 'f', 'g', 'G':
		b.WriteString(sp.float(formatNumberArg(L, arg)))
	case 'q':
		s := formatStringArg(L, arg)
		limits.Grow(L, 2*len(s))
		b.WriteString(quoteLua(s))
	case 's':
		s := formatStringArg(L, arg)
		limits.Grow(L, len(s))
		if !sp.hasPrec && len(s) >= 100 {
			b.WriteString(s)
			return
		}
		b.WriteString(padString(s, sp.flags, sp.width, sp.prec))
	default:
		L.RaiseError("invalid option '%%%c' to 'format'", sp.conv)
	}
}

// float is %e, %f or %g of f; inf and nan as glibc prints them.
func (sp *formatSpec) float(f float64) string {
	s, ok := clua.NonFinite(f)
	if !ok {
		spec := sp.printf()
		if !sp.hasPrec {
			spec += ".6"
		}
		return fmt.Sprintf(spec+string(sp.conv), f)
	}
	if sp.conv == 'E' || sp.conv == 'G' {
		s = strings.ToUpper(s)
	}
	if !math.IsNaN(f) && f > 0 && strings.ContainsAny(sp.flags, "+ ") {
		if strings.Contains(sp.flags, "+") {
			s = "+" + s
		} else {
			s = " " + s
		}
	}
	return padString(s, strings.ReplaceAll(sp.flags, "0", ""), sp.width, "")
}

// padString applies %s's precision (bytes kept) and width.
func padString(s, flags, width, prec string) string {
	if prec != "" || strings.Contains(flags, ".") {
		n := atoiSmall(prec)
		if n < len(s) {
			s = s[:n]
		}
	}
	w := atoiSmall(width)
	if len(s) >= w {
		return s
	}
	pad := strings.Repeat(" ", w-len(s))
	if strings.Contains(flags, "-") {
		return s + pad
	}
	return pad + s
}

func atoiSmall(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func typeNameOf(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// formatNumberArg is luaL_checknumber for string.format's argument n.
func formatNumberArg(L *lua.LState, n int) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		if n <= L.GetTop() {
			return float64(v)
		}
	case lua.LString:
		if f, ok := str2number(string(v)); ok {
			return f
		}
	}
	L.RaiseError("bad argument #%d to 'format' (number expected, got %s)", n, typeNameOf(L, n))
	return 0
}

// formatStringArg is luaL_checklstring: numbers become "%.14g" text.
func formatStringArg(L *lua.LState, n int) string {
	if n <= L.GetTop() {
		switch v := L.Get(n).(type) {
		case lua.LString:
			return string(v)
		case lua.LNumber:
			return fmtNumber(float64(v))
		}
	}
	L.RaiseError("bad argument #%d to 'format' (string expected, got %s)", n, typeNameOf(L, n))
	return ""
}

// quoteLua is %q: a Lua string literal that reads back as s.
func quoteLua(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
