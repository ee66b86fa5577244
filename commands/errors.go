package commands

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Every error text a command replies with lives here, worded as Redis 7.0
// words it, so a difference from Redis is a one-line fix in one place.
const (
	ErrSyntax          = "ERR syntax error"
	ErrNotInt          = "ERR value is not an integer or out of range"
	ErrNotFloat        = "ERR value is not a valid float"
	ErrWrongType       = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrNoSuchKey       = "ERR no such key"
	ErrOverflow        = "ERR increment or decrement would overflow"
	ErrIncrNaN         = "ERR increment would produce NaN or Infinity"
	ErrDBIndex         = "ERR DB index is out of range"
	ErrInvalidExpire   = "ERR invalid expire time in '%s' command"
	ErrIndexRange      = "ERR index out of range"
	ErrOffsetRange     = "ERR offset is out of range"
	ErrStringTooLong   = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrMinMaxFloat     = "ERR min or max is not a float"
	ErrMinMaxLex       = "ERR min or max not valid string range item"
	ErrTimeoutNeg      = "ERR timeout is negative"
	ErrTimeoutNotFloat = "ERR timeout is not a float or out of range"
	ErrTimeoutOverflow = "ERR timeout is out of range"
	ErrHashNotInt      = "ERR hash value is not an integer"
	ErrHashNotFloat    = "ERR hash value is not a float"
	ErrXXNX            = "ERR XX and NX options at the same time are not compatible"
	ErrGTLTNX          = "ERR GT, LT, and/or NX options at the same time are not compatible"
	ErrIncrOnePair     = "ERR INCR option supports a single increment-element pair"
	ErrZScoreNaN       = "ERR resulting score is not a number (NaN)"
	ErrWeightNotFloat  = "ERR weight value is not a float"
	ErrNumKeysZero     = "ERR at least 1 input key is needed for '%s' command"
	ErrNumKeysMore     = "ERR Number of keys can't be greater than number of args"
	ErrPositive        = "ERR value is out of range, must be positive"
	ErrCountPositive   = "ERR COUNT must be > 0"
	ErrRankZero        = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	ErrMaxLenNeg       = "ERR MAXLEN can't be negative"
	ErrCountNeg        = "ERR COUNT can't be negative"
	ErrInvalidCursor   = "ERR invalid cursor"
	ErrUnknownType     = "ERR unknown type name '%s'"
	ErrLimitOnlyWith   = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	ErrWithScoresLex   = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	ErrNotAllowedMulti = "ERR %s inside MULTI is not allowed"
	ErrMultiNested     = "ERR MULTI calls can not be nested"
	ErrExecNoMulti     = "ERR EXEC without MULTI"
	ErrDiscardNoMulti  = "ERR DISCARD without MULTI"
	ErrNotInMulti      = "ERR Command not allowed inside a transaction"
	ErrExecAbort       = "EXECABORT Transaction discarded because of previous errors."
	ErrExecAbortOf     = "EXECABORT Transaction discarded because of: %s"
	ErrNoAuth          = "NOAUTH Authentication required."
	ErrWrongPass       = "WRONGPASS invalid username-password pair or user is disabled."
	ErrAuthNoPass      = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrNoProto         = "NOPROTO unsupported protocol version"
	ErrNoScript        = "NOSCRIPT No matching script. Please use EVAL."
	ErrBusy            = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrNotBusy         = "NOTBUSY No scripts in execution right now."
	ErrPubSubContext   = "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
	ErrUnknownSub      = "ERR unknown subcommand '%s'. Try %s HELP."
	ErrUnknownSubOr    = "ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP."
	ErrConfigParam     = "ERR Unknown option or number of arguments for CONFIG SET - '%s'"
	ErrSameObject      = "ERR source and destination objects are the same"
	ErrBitValue        = "ERR bit is not an integer or out of range"
	ErrNaNOrInf        = "ERR value is NaN or Infinity"
	ErrValueRange      = "ERR value is out of range"
	ErrRangeBetween    = "ERR value is out of range, value must between %d and %d"
	ErrNumKeysGtZero   = "ERR numkeys should be greater than 0"
	ErrLimitNegative   = "ERR LIMIT can't be negative"
	ErrCountGreater    = "ERR count should be greater than 0"
	ErrMaxClients      = "ERR max number of clients reached"
	// ErrProtectedMode is what Redis 7.0 tells a client from beyond the
	// loopback interface while protected mode is on without a password.
	ErrProtectedMode = "DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. " +
		"In this mode connections are only accepted from the loopback interface. " +
		"If you want to connect from external computers to Redis you may adopt one of the following solutions: " +
		"1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, " +
		"however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. " +
		"2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. " +
		"3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. " +
		"4) Setup a an authentication password for the default user. " +
		"NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside."
	ErrHelloNoAuth     = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	ErrHelloProto      = "ERR Protocol version is not an integer or out of range"
	ErrHelloOption     = "ERR Syntax error in HELLO option '%s'"
	ErrClientName      = "ERR Client names cannot contain spaces, newlines or special characters."
	ErrNoSuchClient    = "ERR No such client"
	ErrClientID        = "ERR client-id should be greater than 0"
	ErrInvalidClientID = "ERR Invalid client ID"
	ErrClientType      = "ERR Unknown client type '%s'"
	ErrWaitReplica     = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."
)

// Misconf is the reply to a write the data file could not take, or that is
// refused while writes to it fail: Redis's words for an AOF write error,
// with strerror's text of the errno.
func Misconf(err error) string {
	// A cluster node's refusals (not leading, a change of leader) are
	// not the file's: they carry their own reply.
	var own interface{ RedisReply() string }
	if errors.As(err, &own) {
		return own.RedisReply()
	}
	return "MISCONF Errors writing to the AOF file: " + strerror(err)
}

// strerror is the C library's text for err's errno (Go's, capitalized), or
// err's own text when it carries none.
func strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	return strings.ToUpper(s[:1]) + s[1:]
}

// WrongArgs is the reply to a command called with the wrong number of
// arguments; name is the command as the client typed it, lowercased.
func WrongArgs(name string) string {
	return fmt.Sprintf("ERR wrong number of arguments for '%s' command", name)
}

// UnknownCommand is the reply to a command name that is not in the table.
func UnknownCommand(name string, args [][]byte) string {
	s := fmt.Sprintf("ERR unknown command '%s', with args beginning with: ", sanitize(name))
	for i, a := range args {
		if i >= 10 || len(s) > 128 {
			break
		}
		s += fmt.Sprintf("'%s' ", sanitize(string(a)))
	}
	return s
}

// sanitize mirrors Redis replacing characters that would break an error
// line, and caps the length as Redis does (128 bytes).
func sanitize(s string) string {
	if len(s) > 128 {
		s = s[:128]
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// Errorf formats one of the texts above that takes arguments.
func Errorf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Keys, strings and server errors.
const (
	ErrUnsupportedOption = "ERR Unsupported option %s"
	ErrExpireNXCombo     = "ERR NX and XX, GT or LT options at the same time are not compatible"
	ErrExpireGTLT        = "ERR GT and LT options at the same time are not compatible"
	ErrFirstDBIndex      = "ERR invalid first DB index"
	ErrSecondDBIndex     = "ERR invalid second DB index"
	ErrDecrOverflow      = "ERR decrement would overflow"
	ErrBitOffset         = "ERR bit offset is not an integer or out of range"
	ErrBitArg            = "ERR The bit argument must be 1 or 0."
	ErrBitOpNot          = "ERR BITOP NOT must be called with a single source key."
	ErrBitfieldType      = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	ErrBitfieldOverflow  = "ERR Invalid OVERFLOW type specified"
	ErrBitfieldRO        = "ERR BITFIELD_RO only supports the GET subcommand"
	ErrLCSTypes          = "ERR The specified keys must contain string values"
	ErrLCSIdxLen         = "ERR If you want both the length and indexes, please just use IDX."
	ErrLCSMemory         = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	ErrTimeoutNotInt     = "ERR timeout is not an integer or out of range"
)

// Server errors.
const (
	ErrNoShutdown      = "ERR No shutdown in progress."
	ErrShutdownSave    = "ERR Errors trying to SHUTDOWN. Check logs."
	ErrNoConfigFile    = "ERR The server is running without a config file"
	ErrRewriteConfig   = "ERR Rewriting config file: %s"
	ErrConfigSetFailed = "ERR CONFIG SET failed (possibly related to argument '%s') - %s"
	ErrInvalidCommand  = "ERR Invalid command specified"
	ErrGetKeysArgs     = "ERR Invalid number of arguments specified for command"
	ErrGetKeysNone     = "ERR The command has no key arguments"
	ErrDocsAll         = "ERR COMMAND DOCS needs command names: qlessd has no argument docs for all commands"
)

// Scripting (EVAL, redis.call) texts.
const (
	ErrNumKeysNeg       = "ERR Number of keys can't be negative"
	ErrScriptFlushMode  = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	ErrScriptUnknownCmd = "ERR Unknown Redis command called from script"
	ErrScriptWrongArgs  = "ERR Wrong number of args calling Redis command from script"
	ErrScriptNotAllowed = "ERR This Redis command is not allowed from script"
	ErrScriptReadOnly   = "ERR Write commands are not allowed from read-only scripts."
	ErrScriptDebugMode  = "ERR Use SCRIPT DEBUG YES/SYNC/NO"
	ErrScriptNoDebugger = "ERR SCRIPT DEBUG YES/SYNC is not supported: qlessd has no Lua debugger"
)

// Error texts of the observability commands (MONITOR, SLOWLOG, LATENCY,
// MEMORY).
const (
	ErrSubSyntax           = "ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP."
	ErrSlowlogCount        = "ERR count should be greater than or equal to -1"
	ErrNoLatencySample     = "ERR No samples available for event '%s'"
	ErrMonitorDenyBlocking = "ERR MONITOR isn't allowed for DENY BLOCKING client"
	ErrMonitorKeyspace     = "ERR Replica can't interact with the keyspace"
)
