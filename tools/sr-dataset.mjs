#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0
// The query side of a `schedreplay batch` dataset, through DuckDB (docs/batch.md):
//
//   sr-dataset.mjs parquet DIR                 each trace's NDJSON rows -> DIR/parquet/ (incremental)
//   sr-dataset.mjs query DIR [--ndjson] SQL    run SQL over the views traces, wakeups, decisions
//   sr-dataset.mjs query DIR [--ndjson] --doc FILE NAME   run the example NAME of a doc
//   sr-dataset.mjs describe DIR [--ndjson]     each table's columns and types as DuckDB reads them
//   sr-dataset.mjs check-types DIR [--ndjson]  fail unless those types are schema.json's
//   sr-dataset.mjs bench DIR DOC               each example of DOC on both forms, best of 3, in ms
//
// Results print as tab-separated values with a header; NULL for null.  Without
// --ndjson the views read the Parquet copy (DIR/parquet/), else the NDJSON rows.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const schema = JSON.parse(fs.readFileSync(path.join(here, 'schema.json'), 'utf8'));
const TABLES = Object.keys(schema.tables);

const mtime = (f) => fs.statSync(f).mtimeMs;
const columnsOf = (table) => [...schema.identity, ...schema.tables[table]];
const quote = (s) => `'${String(s).replaceAll("'", "''")}'`;
const structOf = (table) =>
	`{${columnsOf(table).map(([c, t]) => `${quote(c)}: ${quote(t)}`).join(', ')}}`;

// Files under DIR/TABLE/kernel=*/ ending in @ext, as [partition, name].
function partitionFiles(dir, ext) {
	if (!fs.existsSync(dir))
		return [];
	return fs.readdirSync(dir).filter((p) => p.startsWith('kernel=')).sort().flatMap((p) =>
		fs.readdirSync(path.join(dir, p)).filter((f) => f.endsWith(ext)).sort()
			.map((f) => [p, f]));
}

function source(dir, table, ndjson) {
	const files = ndjson ? partitionFiles(path.join(dir, table), '.ndjson.gz')
		: partitionFiles(path.join(dir, 'parquet', table), '.parquet');
	const hive = "hive_partitioning = true, hive_types = {'kernel': VARCHAR}";

	if (!files.length)	// no trace gave rows: an empty table of the right shape
		return `(SELECT ${columnsOf(table).map(([c, t]) => `NULL::${t} AS "${c}"`).join(', ')}, ` +
			`NULL::VARCHAR AS kernel WHERE false)`;
	if (ndjson)
		return `read_json(${quote(`${dir}/${table}/*/*.ndjson.gz`)}, ${hive})`;
	return `read_parquet(${quote(`${dir}/parquet/${table}/*/*.parquet`)}, ${hive})`;
}

// Parquet files that do not mirror the NDJSON rows (not converted yet, or
// older): reading them would give silently stale numbers.
function staleParquet(dir) {
	return TABLES.flatMap((t) => {
		const pq = new Set(partitionFiles(path.join(dir, 'parquet', t), '.parquet')
			.map(([p, f]) => `${p}/${f}`));
		const stale = partitionFiles(path.join(dir, t), '.ndjson.gz').filter(([p, f]) => {
			const rel = `${p}/${f.replace(/\.ndjson\.gz$/, '.parquet')}`;
			const ok = pq.delete(rel) &&
				mtime(path.join(dir, 'parquet', t, rel)) >= mtime(path.join(dir, t, p, f));
			return !ok;
		});
		return [...stale.map(([p, f]) => `${t}/${p}/${f}`), ...[...pq].map((f) => `parquet/${t}/${f}`)];
	});
}

async function connect(dir, ndjson) {
	const stale = ndjson ? [] : staleParquet(dir);

	if (stale.length)
		throw new Error(`${dir}/parquet does not match the NDJSON rows (${stale[0]}` +
			`${stale.length > 1 ? ` and ${stale.length - 1} more` : ''}): run ` +
			`'sr-dataset.mjs parquet ${dir}' first, or query --ndjson`);
	const db = await DuckDBInstance.create(':memory:');
	const con = await db.connect();

	for (const t of TABLES)
		await con.run(`CREATE VIEW ${t} AS SELECT * FROM ${source(dir, t, ndjson)}`);
	return con;
}

const cell = (v) => (v === null || v === undefined ? 'NULL' :
	typeof v === 'object' ? JSON.stringify(v) : String(v));

async function printQuery(con, sql) {
	const r = await con.runAndReadAll(sql);

	console.log(r.columnNames().join('\t'));
	for (const row of r.getRowsJson())
		console.log(row.map(cell).join('\t'));
}

// The ```sql block of @doc that starts with "-- example: NAME".
export function docExample(doc, name) {
	const blocks = [...fs.readFileSync(doc, 'utf8').matchAll(/```sql\n([\s\S]*?)```/g)];
	const hit = blocks.find((m) => m[1].startsWith(`-- example: ${name}\n`));

	if (!hit)
		throw new Error(`${doc}: no \`\`\`sql block starting with "-- example: ${name}"`);
	return hit[1];
}

async function describe(dir, ndjson) {
	const con = await connect(dir, ndjson);
	const out = {};

	for (const t of TABLES) {
		const r = await con.runAndReadAll(`DESCRIBE SELECT * FROM ${t}`);
		out[t] = r.getRowObjectsJson().map((c) => [c.column_name, c.column_type]);
	}
	return out;
}

async function checkTypes(dir, ndjson) {
	const got = await describe(dir, ndjson);
	let bad = 0;

	for (const t of TABLES) {
		const want = [...columnsOf(t), ['kernel', 'VARCHAR']];
		if (JSON.stringify(got[t]) !== JSON.stringify(want)) {
			console.log(`${t}: read as ${JSON.stringify(got[t])}\n  schema.json says ${JSON.stringify(want)}`);
			bad++;
		}
	}
	console.log(`types (${ndjson ? 'ndjson' : 'parquet'}): ${TABLES.length - bad} passed, ${bad} failed`);
	return bad ? 1 : 0;
}

// Every "-- example:" query of @doc on the NDJSON and the Parquet form: the measurement
// behind docs/batch.md's choice of format.
async function bench(dir, doc) {
	const names = [...fs.readFileSync(doc, 'utf8').matchAll(/^-- example: (\S+)$/gm)].map((m) => m[1]);
	const cons = { ndjson: await connect(dir, true), parquet: await connect(dir, false) };

	console.log('query\tndjson_ms\tparquet_ms');
	for (const name of names) {
		const ms = {};
		for (const [form, con] of Object.entries(cons)) {
			for (let i = 0; i < 3; i++) {
				const t0 = performance.now();
				await con.runAndReadAll(docExample(doc, name));
				ms[form] = Math.min(ms[form] ?? Infinity, performance.now() - t0);
			}
		}
		console.log(`${name}\t${ms.ndjson.toFixed(0)}\t${ms.parquet.toFixed(0)}`);
	}
}

// ------------------------------------------------------------ parquet

// One trace's rows of one table, with schema.json's types (not inferred per file).
async function convert(con, table, src, dst) {
	const tmp = `${dst}.tmp`;

	fs.mkdirSync(path.dirname(dst), { recursive: true });
	await con.run(`COPY (SELECT * FROM read_json(${quote(src)}, columns = ${structOf(table)}, ` +
		`format = 'newline_delimited')) TO ${quote(tmp)} (FORMAT parquet, COMPRESSION zstd)`);
	fs.renameSync(tmp, dst);
}

// Parquet files whose NDJSON source is gone (a trace redone under another kernel, or removed).
function prune(dir, table) {
	const pq = path.join(dir, 'parquet', table);
	let n = 0;

	for (const [p, f] of partitionFiles(pq, '.parquet')) {
		if (!fs.existsSync(path.join(dir, table, p, f.replace(/\.parquet$/, '.ndjson.gz')))) {
			fs.rmSync(path.join(pq, p, f));
			n++;
		}
	}
	return n;
}

async function parquet(dir) {
	const db = await DuckDBInstance.create(':memory:', { threads: '1' });
	const jobs = [];
	let pruned = 0;

	for (const t of TABLES) {
		for (const [p, f] of partitionFiles(path.join(dir, t), '.ndjson.gz')) {
			const src = path.join(dir, t, p, f);
			const dst = path.join(dir, 'parquet', t, p, f.replace(/\.ndjson\.gz$/, '.parquet'));

			if (!fs.existsSync(dst) || mtime(dst) < mtime(src))
				jobs.push([t, src, dst]);
		}
		pruned += prune(dir, t);
	}
	// one connection per CPU, each converting files in turn
	const workers = Array.from({ length: Math.min(os.availableParallelism(), jobs.length) },
		async () => {
			const con = await db.connect();
			for (let j; (j = jobs.shift());)
				await convert(con, ...j);
		});
	const total = jobs.length;
	await Promise.all(workers);
	console.log(`parquet: ${total} file(s) written, ${pruned} removed, in ${dir}/parquet`);
}

// ------------------------------------------------------------ main

async function main(argv) {
	const [cmd, dir, ...rest] = argv;
	const ndjson = rest[0] === '--ndjson';
	const args = ndjson ? rest.slice(1) : rest;

	if (!cmd || !dir) {
		console.error('usage: sr-dataset.mjs parquet|query|describe|check-types DIR ... ' +
			'(see the head of this file)');
		return 2;
	}
	if (!fs.existsSync(dir)) {
		console.error(`sr-dataset: ${dir}: no such dataset`);
		return 2;
	}
	switch (cmd) {
	case 'parquet':
		await parquet(dir);
		return 0;
	case 'query': {
		const sql = args[0] === '--doc' ? docExample(args[1], args[2]) : args.join(' ');
		await printQuery(await connect(dir, ndjson), sql);
		return 0;
	}
	case 'describe':
		for (const [t, cols] of Object.entries(await describe(dir, ndjson)))
			console.log(`${t}\t${cols.map(([c, ty]) => `${c}:${ty}`).join(' ')}`);
		return 0;
	case 'check-types':
		return checkTypes(dir, ndjson);
	case 'bench':
		await bench(dir, args[0]);
		return 0;
	}
	console.error(`sr-dataset: unknown command '${cmd}'`);
	return 2;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	main(process.argv.slice(2)).then((rc) => { process.exitCode = rc; },
		(e) => { console.error(`sr-dataset: ${e.message}`); process.exitCode = 1; });
}
