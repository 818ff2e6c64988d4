BdataJ«!Q>–´Z
