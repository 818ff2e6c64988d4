BupdatesJ$NπΏ9ΐ
¶?ηh>φά<ΐ)[@DP"@³Ο&ΐBgRΐ