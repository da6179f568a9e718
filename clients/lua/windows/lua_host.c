/* A minimal Lua 5.3 interpreter for testing the module under Wine: `lua.exe SCRIPT [ARGS]`
 * runs SCRIPT with `arg` set as lua.c sets it, prints an uncaught error with its traceback
 * and exits 1 then. lua-src carries Lua's library but not lua.c, hence this file; it links
 * against lua53-64.dll (lua53-32.dll in the 32-bit build), as Cheat Engine does, so
 * `require` resolves the module's imports against the same DLL. */
#include <stdio.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      msg = lua_tostring(L, -1);
    else
      msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRIPT [ARGS]\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "%s: cannot create a Lua state\n", argv[0]);
    return 1;
  }
  luaL_openlibs(L);
  lua_createtable(L, argc, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_setglobal(L, "arg");
  lua_pushcfunction(L, traceback);
  int status = luaL_loadfile(L, argv[1]);
  if (status == LUA_OK) {
    for (int i = 2; i < argc; i++) lua_pushstring(L, argv[i]);
    status = lua_pcall(L, argc - 2, 0, 1);
  }
  if (status != LUA_OK) fprintf(stderr, "%s: %s\n", argv[0], lua_tostring(L, -1));
  lua_close(L);
  return status == LUA_OK ? 0 : 1;
}
