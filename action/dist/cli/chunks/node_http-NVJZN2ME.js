import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{require_node_http}from"./chunk-6GGR35AS.js";import"./chunk-A75SA247.js";export default require_node_http();
