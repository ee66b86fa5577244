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
		start := i
		for i < len(fs) && strings.IndexByte("-+ #0", fs[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		flags := fs[start:i]
		w := i
		for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
			i++
		}
		width := fs[w:i]
		prec := ""
		hasPrec := false
		if i < len(fs) && fs[i] == '.' {
			hasPrec = true
			i++
			p := i
			for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
				i++
			}
			prec = fs[p:i]
		}
		if i < len(fs) && isDigit(fs[i]) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		if i >= len(fs) {
			L.RaiseError("%s", "invalid option '%' to 'format'")
		}
		arg++
		if arg > L.GetTop() {
			L.RaiseError("bad argument #%d to 'format' (no value)", arg)
		}
		conv := fs[i]
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		switch conv {
		case 'c':
			// C's %c of 0 ends the buffer Lua copies from: nothing is added.
			if c := byte(int64(formatNumberArg(L, arg))); c != 0 {
				b.WriteString(padString(string([]byte{c}), flags, width, ""))
			}
		case 'd', 'i':
			b.WriteString(fmt.Sprintf(spec+"d", luaToInt64(formatNumberArg(L, arg))))
		case 'o', 'u', 'x', 'X':
			v := uint64(luaToInt64(formatNumberArg(L, arg)))
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			b.WriteString(fmt.Sprintf(spec+verb, v))
		case 'e', 'E', 'f', 'g', 'G':
			f := formatNumberArg(L, arg)
			if s, ok := clua.NonFinite(f); ok {
				if conv == 'E' || conv == 'G' {
					s = strings.ToUpper(s)
				}
				if !math.IsNaN(f) && f > 0 && strings.ContainsAny(flags, "+ ") {
					if strings.Contains(flags, "+") {
						s = "+" + s
					} else {
						s = " " + s
					}
				}
				b.WriteString(padString(s, strings.ReplaceAll(flags, "0", ""), width, ""))
				break
			}
			if !hasPrec {
				spec += ".6"
			}
			b.WriteString(fmt.Sprintf(spec+string(conv), f))
		case 'q':
			s := formatStringArg(L, arg)
			limits.Grow(L, 2*len(s))
			b.WriteString(quoteLua(s))
		case 's':
			s := formatStringArg(L, arg)
			limits.Grow(L, len(s))
			if !hasPrec && len(s) >= 100 {
				b.WriteString(s)
				break
			}
			b.WriteString(padString(s, flags, width, prec))
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
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
