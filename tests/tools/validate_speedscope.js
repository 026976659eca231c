// Validates speedscope files against file-format-schema.json from the speedscope npm package, with ajv.
// Usage: node validate_speedscope.js NODE_MODULES_DIR FILE...   Exit status 0 when every file is valid.
'use strict';
const path = require('path');
const fs = require('fs');
const modules = process.argv[2];
const Ajv = require(path.join(modules, 'ajv'));
const schema = JSON.parse(fs.readFileSync(path.join(modules, 'speedscope', 'dist', 'release', 'file-format-schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
let failed = 0;
for (const file of process.argv.slice(3)) {
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  // The schema does not say that evented profiles must nest; speedscope refuses files where they do not.
  const nesting = [];
  for (const p of data.profiles || []) {
    if (p.type !== 'evented') continue;
    const open = [];
    let last = p.startValue;
    for (const e of p.events) {
      if (e.at < last) nesting.push(`${p.name}: event at ${e.at} before ${last}`);
      last = e.at;
      if (e.type === 'O') open.push(e.frame);
      else if (open.pop() !== e.frame) nesting.push(`${p.name}: close of frame ${e.frame} does not match the open one`);
    }
    if (open.length) nesting.push(`${p.name}: ${open.length} frames never closed`);
    if (last > p.endValue) nesting.push(`${p.name}: events end after endValue`);
  }
  if (validate(data) && nesting.length === 0) {
    const types = [...new Set(data.profiles.map(p => p.type))].join(',');
    console.log(`valid: ${file} (${data.profiles.length} ${types} profiles, ${data.shared.frames.length} frames)`);
  } else {
    for (const n of nesting.slice(0, 10)) console.log(`  ${n}`);
    failed++;
    console.log(`INVALID: ${file}`);
    for (const e of (validate.errors || []).slice(0, 10)) console.log(`  ${e.instancePath} ${e.message}`);
  }
}
process.exit(failed ? 1 : 0);
