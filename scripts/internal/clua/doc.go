// Package clua holds the pieces of C and Lua 5.1 behaviour that the Redis
// bundled Lua libraries depend on: printf's %g, glibc's strtod, Lua's string
// to number coercion, and luaL_error / luaL_argerror message shapes.
// Redis scripts compare these texts, so they must come out byte for byte.
package clua
