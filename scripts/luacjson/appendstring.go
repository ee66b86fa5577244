package luacjson

// AppendString appends s as cjson.encode writes a string, for Go code that
// must produce the same JSON text as a script.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if esc := escapes[s[i]]; esc != "" {
			dst = append(dst, s[start:i]...)
			dst = append(dst, esc...)
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
