import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{esc,historyHtml,tickLabel,timelineSvg}from"./chunk-K7E4FQ5E.js";import"./chunk-HT7KCCW6.js";import"./chunk-F5IXDFNA.js";import"./chunk-RKVNR5VC.js";import"./chunk-A75SA247.js";export{esc,historyHtml,tickLabel,timelineSvg};
