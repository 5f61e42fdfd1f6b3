// Only here so that the package has a target; the tool is the dependency's product.
