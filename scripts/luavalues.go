package scripts

// Go code that must produce exactly what a Lua script would (qless's fast
// paths) renders numbers through these, so both agree to the byte.

// AppendArgNumber appends a Lua number as redis.call passes it to a command.
func AppendArgNumber(b []byte, f float64) []byte { return appendArgNumber(b, f) }

// FormatNumber is a Lua number as tostring and the .. operator write it.
func FormatNumber(f float64) string { return fmtNumber(f) }

// NumberReply is the integer reply a script returning f gives.
func NumberReply(f float64) int64 { return luaToInt64(f) }
