import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{__commonJS,__require}from"./chunk-A75SA247.js";var require_node_http=__commonJS({"required-http:node:http"(exports,module){module.exports=__require("node:http")}});export{require_node_http};
