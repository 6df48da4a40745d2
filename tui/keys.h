/*
 * keys.h - the key bindings of `gq top`: one table that maps keys to
 * actions and carries their help text, so that the help screen is drawn
 * from the very bindings that run.
 *
 * Key codes are Unicode code points for printable keys and the K_* values
 * below for the rest; term.c translates the terminal's codes into these.
 */
#ifndef GQ_TUI_KEYS_H
#define GQ_TUI_KEYS_H

#include <stddef.h>

enum key_code {
	K_NONE = 0,
	K_CTRL_B = 2,
	K_CTRL_D = 4,
	K_CTRL_F = 6,
	K_TAB = 9,
	K_ENTER = 10,
	K_CTRL_L = 12,
	K_CTRL_U = 21,
	K_ESC = 27,
	K_BACKSPACE = 127,
	K_SPECIAL = 0x110000, /* above every code point */
	K_UP,
	K_DOWN,
	K_LEFT,
	K_RIGHT,
	K_PGUP,
	K_PGDN,
	K_HOME,
	K_END,
	K_BTAB,
	K_RESIZE,
	K_MOUSE, /* a click: see struct key_event's x, y */
	K_WHEEL_UP,
	K_WHEEL_DOWN,
};

struct key_event {
	int code; /* a code point or an enum key_code */
	int x, y; /* K_MOUSE: the cell clicked */
};

/* What a key asks for. Views see actions, not keys. */
enum action {
	ACT_NONE,
	ACT_QUIT,
	ACT_HELP,
	ACT_NEXT_VIEW,
	ACT_PREV_VIEW,
	ACT_VIEW_QUEUE,
	ACT_VIEW_RUNNING,
	ACT_VIEW_NODES,
	ACT_VIEW_EVENTS,
	ACT_VIEW_POLICY,
	ACT_VIEW_JOB,
	ACT_UP,
	ACT_DOWN,
	ACT_PGUP,
	ACT_PGDN,
	ACT_HOME,
	ACT_END,
	ACT_FILTER,
	ACT_SORT,
	ACT_OPEN,
	ACT_BACK,
	ACT_CANCEL,
	ACT_HOLD,
	ACT_RELEASE,
	ACT_OVERRIDE,
	ACT_REDRAW,
	ACT_COUNT
};

#define KEYS_PER_ACTION 3

struct key_binding {
	enum action act;
	int keys[KEYS_PER_ACTION]; /* 0-terminated when fewer */
	const char *label;	   /* how the help screen names the keys */
	const char *help;	   /* lower case, no full stop */
};

/* The table, in the order the help screen lists it. */
extern const struct key_binding key_bindings[];
extern const size_t key_binding_count;

/* The action bound to key code, ACT_NONE when none. */
enum action keys_action(int code);
/* The binding of an action, or NULL. Borrowed from the static table. */
const struct key_binding *keys_binding(enum action act);

#endif
