/*
 * keys.c - the one table of key bindings and help texts (see keys.h).
 * Adding a binding here adds it to the help screen; nothing else lists keys.
 */
#include "keys.h"

const struct key_binding key_bindings[] = {
    {ACT_UP, {K_UP, 'k', 0}, "Up k", "move the selection up"},
    {ACT_DOWN, {K_DOWN, 'j', 0}, "Down j", "move the selection down"},
    {ACT_PGUP, {K_PGUP, K_CTRL_B, K_CTRL_U}, "PgUp ^B ^U", "one page up"},
    {ACT_PGDN, {K_PGDN, K_CTRL_F, K_CTRL_D}, "PgDn ^F ^D", "one page down"},
    {ACT_HOME, {K_HOME, 'g', 0}, "Home g", "first row"},
    {ACT_END, {K_END, 'G', 0}, "End G", "last row"},
    {ACT_NEXT_VIEW, {K_TAB, K_RIGHT, 'l'}, "Tab Right", "next view"},
    {ACT_PREV_VIEW, {K_BTAB, K_LEFT, 0}, "S-Tab Left", "previous view"},
    {ACT_VIEW_QUEUE, {'1', 0, 0}, "1", "queue: pending jobs in scheduling order"},
    {ACT_VIEW_RUNNING, {'2', 0, 0}, "2", "running jobs"},
    {ACT_VIEW_NODES, {'3', 0, 0}, "3", "nodes and the job on each GPU"},
    {ACT_VIEW_EVENTS, {'4', 0, 0}, "4", "the live event stream"},
    {ACT_VIEW_POLICY, {'5', 0, 0}, "5", "policy revision and recent changes"},
    {ACT_VIEW_JOB, {'6', 0, 0}, "6", "the last job opened"},
    {ACT_OPEN, {K_ENTER, 0, 0}, "Enter", "open the selected job: why, history, log"},
    {ACT_BACK, {K_ESC, K_BACKSPACE, 0}, "Esc Bksp", "back; clear the filter"},
    {ACT_FILTER, {'/', 0, 0}, "/", "filter rows by text (empty to clear)"},
    {ACT_SORT, {'s', 0, 0}, "s", "cycle the sort column"},
    {ACT_CANCEL, {'c', 0, 0}, "c", "cancel the selected job (asks first)"},
    {ACT_HOLD, {'h', 0, 0}, "h", "hold the selected pending job (asks first)"},
    {ACT_RELEASE, {'r', 0, 0}, "r", "release the selected held job (asks first)"},
    {ACT_OVERRIDE, {'p', 0, 0}, "p", "admin: override the selected job's tier"},
    {ACT_REDRAW, {K_CTRL_L, 0, 0}, "^L", "redraw the screen and refresh now"},
    {ACT_HELP, {'?', 0, 0}, "?", "this help"},
    {ACT_QUIT, {'q', 0, 0}, "q", "quit"},
};

const size_t key_binding_count = sizeof(key_bindings) / sizeof(key_bindings[0]);

enum action keys_action(int code)
{
	if (code == K_NONE)
		return ACT_NONE;
	for (size_t i = 0; i < key_binding_count; i++)
		for (int k = 0; k < KEYS_PER_ACTION && key_bindings[i].keys[k]; k++)
			if (key_bindings[i].keys[k] == code)
				return key_bindings[i].act;
	return ACT_NONE;
}

const struct key_binding *keys_binding(enum action act)
{
	for (size_t i = 0; i < key_binding_count; i++)
		if (key_bindings[i].act == act)
			return &key_bindings[i];
	return NULL;
}
