// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: the escaping rule for names (user/lib/escape.c), whose
 * reverse parses --heatmap-key. For any bytes (up to a NUL): the escaped
 * form has no byte below 0x20 and no DEL, fits the length name_escape()
 * returns, and unescapes to the input; name_write() in every syntax
 * writes the same characters once its quoting is undone, and name_put()
 * the same bytes as name_write(); name_unescape()
 * of the raw input never overruns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"


int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *in = malloc(size + 1), *out, *back, *text = NULL, *json = NULL;
	size_t n, i, tl = 0, jl = 0;
	struct outbuf ob = {};
	FILE *f;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	n = name_escape(NULL, 0, in);
	out = malloc(n + 1);
	back = malloc(n + 1);
	if (!out || !back)
		abort();
	if (name_escape(out, n + 1, in) != n || strlen(out) != n)
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort();
	if (name_unescape(out, back, n + 1) || strcmp(back, in))
		abort();
	f = open_memstream(&text, &tl);
	name_write(f, in, ESC_TEXT);
	fclose(f);
	f = open_memstream(&json, &jl);
	name_write(f, in, ESC_JSON);
	fclose(f);
	if (strcmp(text, out) || jl < tl)
		abort();
	/* the renderers' buffer gets the same bytes */
	name_put(&ob, in, ESC_JSON);
	if (!ob_cstr(&ob) || strcmp(ob.p, json))
		abort();
	ob_free(&ob);
	/* the raw input as a --heatmap-key: decoded or refused, never overrun */
	name_unescape(in, back, n + 1 < size + 1 ? n + 1 : size + 1);
	free(in);
	free(out);
	free(back);
	free(text);
	free(json);
	return 0;
}
