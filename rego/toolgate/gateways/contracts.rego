# Contract pinning for gateways that see tools/list responses: input {"server": S, "tools": [the
# tool objects S lists now]}; changed is the names whose contract differs from the compiled one
# (or that the catalog does not know). Such a tool is called CONTRACT_CHANGED when its object or
# digest is passed with the call (params._meta "io.toolgate/tool" or
# "io.toolgate/tool_contract_digest").
package toolgate.gateways.contracts

import data.toolgate.gateways.core
import rego.v1

changed := core.changed_tools(input.server, input.tools) if {
	is_string(input.server)
	is_array(input.tools)
}
