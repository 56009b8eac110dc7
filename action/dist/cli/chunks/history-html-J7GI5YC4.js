import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{esc,historyHtml,timelineSvg}from"./chunk-WN2Y3WHA.js";import"./chunk-54EPOXGL.js";import"./chunk-FIFPO5TA.js";import"./chunk-A75SA247.js";export{esc,historyHtml,timelineSvg};
