import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
function columns(headers,rows){const widths=headers.map((h,i)=>Math.max(h.length,...rows.map(r=>r[i].length)));return[headers,...rows].map(cells=>`${cells.map((c,i)=>c.padEnd(widths[i])).join("   ").trimEnd()}
`).join("")}export{columns};
